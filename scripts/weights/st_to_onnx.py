# A sentence-transformers folder (safetensors weights) as the folder kb's users download from the hub:
# the same files beside onnx/model_quantized.onnx (the transformer, last_hidden_state out), exported by
# PyTorch and quantized the way those hub exports were made (onnxruntime's dynamic int8
# quantization: per channel, reduced range, MatMul and Gather weights). Pooling and normalising stay
# kb's, read from 1_Pooling and modules.json as for any imported folder.
#   python st_to_onnx.py SRC_DIR OUT_DIR
import json
import os
import shutil
import sys

import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from transformers import AutoModel

KEEP = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "modules.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
)


class Hidden(torch.nn.Module):
    def __init__(self, model, token_types):
        super().__init__()
        self.model = model
        self.token_types = token_types

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        kw = {"input_ids": input_ids, "attention_mask": attention_mask}
        if self.token_types:
            kw["token_type_ids"] = token_type_ids
        return self.model(**kw).last_hidden_state


def main(src, out):
    tmp = out + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "onnx"))
    for f in KEEP:
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), tmp)
    if os.path.isdir(os.path.join(src, "1_Pooling")):
        shutil.copytree(os.path.join(src, "1_Pooling"), os.path.join(tmp, "1_Pooling"))

    # Eager attention, as optimum exports: one plain graph whatever the batch's padding.
    model = AutoModel.from_pretrained(src, local_files_only=True, attn_implementation="eager").eval()
    token_types = getattr(model.config, "type_vocab_size", 0) > 0 and model.config.model_type != "mpnet"
    names = ["input_ids", "attention_mask"] + (["token_type_ids"] if token_types else [])
    example = tuple(torch.ones(1, 8, dtype=torch.long) if n != "token_type_ids" else torch.zeros(1, 8, dtype=torch.long) for n in names)
    axes = {n: {0: "batch_size", 1: "sequence_length"} for n in names}
    axes["last_hidden_state"] = {0: "batch_size", 1: "sequence_length"}
    # The float32 export is only the quantizer's input: kb loads the int8 graph, and a folder holding
    # both would be imported (copied) whole, at five times the size.
    fp32 = out + ".fp32.onnx"
    with torch.no_grad():
        torch.onnx.export(
            Hidden(model, token_types),
            example,
            fp32,
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=14,
            do_constant_folding=True,
            dynamo=False,
        )
    quantize_dynamic(
        model_input=fp32,
        model_output=os.path.join(tmp, "onnx", "model_quantized.onnx"),
        per_channel=True,
        reduce_range=True,
        weight_type=QuantType.QInt8,
        extra_options={"EnableSubgraph": True},
    )
    os.remove(fp32)
    with open(os.path.join(tmp, "kb-weights.json"), "w") as f:
        json.dump({"from": os.path.abspath(src), "torch": torch.__version__}, f)
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: st_to_onnx.py SRC_DIR OUT_DIR")
    main(*sys.argv[1:])
