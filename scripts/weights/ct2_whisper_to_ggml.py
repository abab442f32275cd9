# A CTranslate2 Whisper model (what faster-whisper loads: model.bin, config.json) as the ggml file
# whisper.cpp loads, written the way whisper.cpp's models/convert-pt-to-ggml.py writes one from
# OpenAI's checkpoint: the same header, mel filters and byte-level vocabulary (from the openai-whisper
# package's assets), and the same tensors under OpenAI's names, in the checkpoint's order. CTranslate2
# fuses attention's query/key/value into one matrix (key without a bias); they are split back here.
#   python ct2_whisper_to_ggml.py MODEL.bin WHISPER_ASSETS_DIR OUT.bin
import base64
import struct
import sys

import numpy as np

DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


def read_ct2(path):
    """The variables of a CTranslate2 model.bin (binary version 6), aliases resolved."""
    b = open(path, "rb").read()
    o = 0

    def take(fmt):
        nonlocal o
        v = struct.unpack_from(fmt, b, o)
        o += struct.calcsize(fmt)
        return v[0]

    def string():
        nonlocal o
        n = take("H")
        s = b[o : o + n - 1].decode("utf-8")
        o += n
        return s

    version = take("I")
    if version != 6:
        raise SystemExit(f"{path}: CTranslate2 binary version {version}, this converter reads version 6")
    spec = string()
    if spec != "WhisperSpec":
        raise SystemExit(f"{path}: a {spec}, not a Whisper model")
    take("I")  # revision
    out = {}
    for _ in range(take("I")):
        name = string()
        shape = [take("I") for _ in range(take("B"))]
        dtype = take("B")
        nbytes = take("I")
        if dtype not in DTYPES:
            raise SystemExit(f"{path}: {name} has dtype id {dtype} (quantized?); only float16/float32 models convert")
        out[name] = np.frombuffer(b, dtype=DTYPES[dtype], count=nbytes // np.dtype(DTYPES[dtype]).itemsize, offset=o).reshape(shape)
        o += nbytes
    for _ in range(take("I")):
        alias, target = string(), string()
        out[alias] = out[target]
    return out


def layers(v, side):
    n = 0
    while f"{side}/layer_{n}/ffn/linear_0/weight" in v:
        n += 1
    return n


def openai_state(v):
    """OpenAI Whisper's state_dict order and names (what convert-pt-to-ggml.py iterates)."""
    d = v["encoder/conv1/weight"].shape[0]
    out = []

    def attn(prefix, src, fused_kv_from=None):
        if fused_kv_from is None:  # self-attention: one [3d, d] matrix
            w, bias = v[f"{src}/linear_0/weight"], v[f"{src}/linear_0/bias"]
            q, k, val = (w[0:d], bias[0:d]), w[d : 2 * d], (w[2 * d : 3 * d], bias[2 * d : 3 * d])
            o = (v[f"{src}/linear_1/weight"], v[f"{src}/linear_1/bias"])
        else:  # cross-attention: query alone, then key and value fused
            q = (v[f"{src}/linear_0/weight"], v[f"{src}/linear_0/bias"])
            kv_w, kv_b = v[f"{src}/linear_1/weight"], v[f"{src}/linear_1/bias"]
            k, val = kv_w[0:d], (kv_w[d : 2 * d], kv_b[d : 2 * d])
            o = (v[f"{src}/linear_2/weight"], v[f"{src}/linear_2/bias"])
        out.extend(
            [
                (f"{prefix}.query.weight", q[0]),
                (f"{prefix}.query.bias", q[1]),
                (f"{prefix}.key.weight", k),
                (f"{prefix}.value.weight", val[0]),
                (f"{prefix}.value.bias", val[1]),
                (f"{prefix}.out.weight", o[0]),
                (f"{prefix}.out.bias", o[1]),
            ]
        )

    def ln(name, src):
        out.extend([(f"{name}.weight", v[f"{src}/gamma"]), (f"{name}.bias", v[f"{src}/beta"])])

    def mlp(prefix, src):
        out.extend(
            [
                (f"{prefix}.mlp.0.weight", v[f"{src}/ffn/linear_0/weight"]),
                (f"{prefix}.mlp.0.bias", v[f"{src}/ffn/linear_0/bias"]),
                (f"{prefix}.mlp.2.weight", v[f"{src}/ffn/linear_1/weight"]),
                (f"{prefix}.mlp.2.bias", v[f"{src}/ffn/linear_1/bias"]),
            ]
        )
        ln(f"{prefix}.mlp_ln", f"{src}/ffn/layer_norm")

    out.append(("encoder.positional_embedding", v["encoder/position_encodings/encodings"]))
    for c in ("conv1", "conv2"):
        out.extend([(f"encoder.{c}.weight", v[f"encoder/{c}/weight"]), (f"encoder.{c}.bias", v[f"encoder/{c}/bias"])])
    for i in range(layers(v, "encoder")):
        p, s = f"encoder.blocks.{i}", f"encoder/layer_{i}"
        attn(f"{p}.attn", f"{s}/self_attention")
        ln(f"{p}.attn_ln", f"{s}/self_attention/layer_norm")
        mlp(p, s)
    ln("encoder.ln_post", "encoder/layer_norm")
    out.append(("decoder.positional_embedding", v["decoder/position_encodings/encodings"]))
    out.append(("decoder.token_embedding.weight", v["decoder/embeddings/weight"]))
    for i in range(layers(v, "decoder")):
        p, s = f"decoder.blocks.{i}", f"decoder/layer_{i}"
        attn(f"{p}.attn", f"{s}/self_attention")
        ln(f"{p}.attn_ln", f"{s}/self_attention/layer_norm")
        attn(f"{p}.cross_attn", f"{s}/attention", fused_kv_from=True)
        ln(f"{p}.cross_attn_ln", f"{s}/attention/layer_norm")
        mlp(p, s)
    ln("decoder.ln", "decoder/layer_norm")
    return out


def main(model_bin, assets, out_path):
    v = read_ct2(model_bin)
    n_vocab, n_text_state = v["decoder/embeddings/weight"].shape
    n_audio_state, n_mels = v["encoder/conv1/weight"].shape[0:2]
    n_audio_ctx = v["encoder/position_encodings/encodings"].shape[0]
    n_text_ctx = v["decoder/position_encodings/encodings"].shape[0]
    heads = lambda side: int(np.asarray(v[f"{side}/num_heads"]).reshape(-1)[0])  # noqa: E731
    multilingual = n_vocab >= 51865
    with np.load(f"{assets}/mel_filters.npz") as f:
        filters = f[f"mel_{n_mels}"]
    vocab_file = f"{assets}/{'multilingual' if multilingual else 'gpt2'}.tiktoken"
    tokens = [base64.b64decode(t) for t, _ in (line.split() for line in open(vocab_file, "rb").read().splitlines() if line)]

    with open(out_path, "wb") as f:
        f.write(struct.pack("i", 0x67676D6C))
        for x in (
            n_vocab, n_audio_ctx, n_audio_state, heads("encoder"), layers(v, "encoder"),
            n_text_ctx, n_text_state, heads("decoder"), layers(v, "decoder"), n_mels, 1,
        ):  # fmt: skip
            f.write(struct.pack("i", int(x)))
        f.write(struct.pack("ii", *filters.shape))
        f.write(filters.astype(np.float32).tobytes())
        f.write(struct.pack("i", len(tokens)))
        for t in tokens:
            f.write(struct.pack("i", len(t)))
            f.write(t)
        for name, data in openai_state(v):
            data = np.asarray(data)
            if name in ("encoder.conv1.bias", "encoder.conv2.bias"):
                data = data.reshape(data.shape[0], 1)
            # As convert-pt-to-ggml.py: vectors, conv biases and positional embeddings stay float32.
            f32 = data.ndim < 2 or name in (
                "encoder.conv1.bias", "encoder.conv2.bias", "encoder.positional_embedding", "decoder.positional_embedding",
            )  # fmt: skip
            data = data.astype(np.float32 if f32 else np.float16)
            encoded = name.encode("utf-8")
            f.write(struct.pack("iii", data.ndim, len(encoded), 0 if f32 else 1))
            for i in range(data.ndim):
                f.write(struct.pack("i", data.shape[data.ndim - 1 - i]))
            f.write(encoded)
            f.write(data.tobytes())


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit("usage: ct2_whisper_to_ggml.py MODEL.bin WHISPER_ASSETS_DIR OUT.bin")
    main(*sys.argv[1:])
