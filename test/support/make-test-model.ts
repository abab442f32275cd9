// Writes a random-weight BERT encoder as ONNX, in the Hugging Face folder layout, with the real
// all-MiniLM-L6-v2 tokenizer from ../shared/corpora. Its vectors mean nothing: it exists to test the
// embedding plumbing and to measure speed at the real architecture's cost (`minilm-l6`).
// With --cross-encoder it is a one-logit reranker; with --st, a sentence-transformers folder
// (modules.json, 1_Pooling, …); with --quantized, int8 linears as the hub's model_quantized.onnx.
//   npm run make-test-model -- --arch minilm-l6|small64|tiny [--quantized] [--cross-encoder] [--st mean|cls|last] --out DIR
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Arch {
  layers: number;
  hidden: number;
  heads: number;
  ffn: number;
  positions: number;
  vocab: number;
}

export const ARCHS: Record<'minilm-l6' | 'tiny' | 'small64', Arch> = {
  'minilm-l6': { layers: 6, hidden: 384, heads: 12, ffn: 1536, positions: 512, vocab: 30522 },
  tiny: { layers: 2, hidden: 32, heads: 4, ffn: 64, positions: 512, vocab: 30522 },
  small64: { layers: 2, hidden: 64, heads: 4, ffn: 128, positions: 512, vocab: 30522 },
};

export interface BuildOptions {
  tokenTypeIds: boolean;
  /**
   * Linear layers as dynamic int8 quantization writes them (DynamicQuantizeLinear → MatMulInteger),
   * the form of the hub's model_quantized.onnx files.
   */
  quantized?: boolean;
  /** hidden: last_hidden_state (an embedding model); logit: BertForSequenceClassification with one label (a cross-encoder). */
  head?: 'hidden' | 'logit';
}

export const TOKENIZER_FILES = ['tokenizer.json', 'tokenizer_config.json', 'vocab.txt', 'special_tokens_map.json'];

/** Seeded normal(0, std) weights, so the same arch always gives the same model. */
function randn(n: number, std: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  const u = (): number => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) + 1) / 4294967297;
  };
  for (let i = 0; i < n; i += 2) {
    const r = Math.sqrt(-2 * Math.log(u()));
    const t = 2 * Math.PI * u();
    out[i] = r * Math.cos(t) * std;
    if (i + 1 < n) out[i + 1] = r * Math.sin(t) * std;
  }
  return out;
}

type Tensor = InstanceType<typeof onnx.TensorProto>;

export function buildModel(a: Arch, opts: BuildOptions): Uint8Array {
  const inits: Tensor[] = [];
  const nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  let seed = 1;
  let tmp = 0;
  const t = (): string => `t${tmp++}`;
  const f32 = (name: string, dims: number[], data: Float32Array): string => {
    inits.push(onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(data.buffer) }));
    return name;
  };
  const weight = (name: string, dims: number[]): string =>
    f32(
      name,
      dims,
      randn(
        dims.reduce((x, y) => x * y, 1),
        0.02,
        seed++,
      ),
    );
  const fill = (name: string, dims: number[], v: number): string =>
    f32(name, dims, new Float32Array(dims.reduce((x, y) => x * y, 1)).fill(v));
  const i64 = (name: string, values: number[]): string => {
    inits.push(
      onnx.TensorProto.create({
        name,
        dims: [values.length],
        dataType: onnx.TensorProto.DataType.INT64,
        rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer),
      }),
    );
    return name;
  };
  const node = (op: string, inputs: string[], attrs: Record<string, number | number[]> = {}): string => {
    const out = t();
    const attribute = Object.entries(attrs).map(([name, v]) =>
      Array.isArray(v)
        ? onnx.AttributeProto.create({ name, ints: v, type: onnx.AttributeProto.AttributeType.INTS })
        : Number.isInteger(v) && name !== 'alpha' && name !== 'epsilon'
          ? onnx.AttributeProto.create({ name, i: v, type: onnx.AttributeProto.AttributeType.INT })
          : onnx.AttributeProto.create({ name, f: v, type: onnx.AttributeProto.AttributeType.FLOAT }),
    );
    nodes.push(onnx.NodeProto.create({ opType: op, input: inputs, output: [out], attribute }));
    return out;
  };
  const H = a.hidden;
  const dh = H / a.heads;
  const layerNorm = (x: string, prefix: string): string =>
    node('LayerNormalization', [x, fill(`${prefix}.weight`, [H], 1), fill(`${prefix}.bias`, [H], 0)], { axis: -1, epsilon: 1e-12 });
  const int8 = (name: string, dims: number[], data: Int8Array | Uint8Array, type: 'INT8' | 'UINT8'): string => {
    inits.push(onnx.TensorProto.create({ name, dims, dataType: onnx.TensorProto.DataType[type], rawData: new Uint8Array(data.buffer) }));
    return name;
  };
  const quantizedMatMul = (x: string, prefix: string, nIn: number, nOut: number): string => {
    const w = randn(nIn * nOut, 0.02, seed++);
    const scale = w.reduce((m, v) => Math.max(m, Math.abs(v)), 0) / 127 || 1;
    const q = Int8Array.from(w, (v) => Math.round(v / scale));
    const [xq, xs, xz] = [t(), t(), t()];
    nodes.push(onnx.NodeProto.create({ opType: 'DynamicQuantizeLinear', input: [x], output: [xq, xs, xz] }));
    const wq = int8(`${prefix}.weight_quantized`, [nIn, nOut], q, 'INT8');
    const wz = int8(`${prefix}.weight_zero_point`, [], new Int8Array(1), 'INT8');
    const y = node('Cast', [node('MatMulInteger', [xq, wq, xz, wz])], { to: onnx.TensorProto.DataType.FLOAT });
    return node('Mul', [y, node('Mul', [xs, fill(`${prefix}.weight_scale`, [], scale)])]);
  };
  const linear = (x: string, prefix: string, nIn: number, nOut: number): string =>
    node('Add', [
      opts.quantized ? quantizedMatMul(x, prefix, nIn, nOut) : node('MatMul', [x, weight(`${prefix}.weight`, [nIn, nOut])]),
      fill(`${prefix}.bias`, [nOut], 0),
    ]);

  // Embeddings: word + position (sliced to the sequence length) + token type, then LayerNorm.
  const word = node('Gather', [weight('embeddings.word_embeddings', [a.vocab, H]), 'input_ids'], { axis: 0 });
  const seqLen = node('Gather', [node('Shape', ['input_ids']), i64('one_idx', [1])], { axis: 0 });
  const pos = node('Slice', [weight('embeddings.position_embeddings', [a.positions, H]), i64('zero', [0]), seqLen, i64('axis0', [0])]);
  let x = node('Add', [word, pos]);
  if (opts.tokenTypeIds) {
    const types = node('Gather', [weight('embeddings.token_type_embeddings', [2, H]), 'token_type_ids'], { axis: 0 });
    x = node('Add', [x, types]);
  }
  x = layerNorm(x, 'embeddings.LayerNorm');

  // Additive attention mask [B, 1, 1, S]: 0 where attended, -10000 where padded.
  const maskF = node('Cast', ['attention_mask'], { to: onnx.TensorProto.DataType.FLOAT });
  const inverted = node('Sub', [fill('one_f', [1], 1), maskF]);
  const mask = node('Unsqueeze', [node('Mul', [inverted, fill('neg', [1], -10000)]), i64('mask_axes', [1, 2])]);
  const splitHeads = i64('split_heads', [0, 0, a.heads, dh]);
  const mergeHeads = i64('merge_heads', [0, 0, H]);
  const scale = fill('scale', [1], 1 / Math.sqrt(dh));

  for (let l = 0; l < a.layers; l++) {
    const p = `encoder.layer.${l}`;
    const heads = (name: string, perm: number[]): string =>
      node('Transpose', [node('Reshape', [linear(x, `${p}.attention.self.${name}`, H, H), splitHeads])], { perm });
    const q = heads('query', [0, 2, 1, 3]);
    const k = heads('key', [0, 2, 3, 1]);
    const v = heads('value', [0, 2, 1, 3]);
    const scores = node('Add', [node('Mul', [node('MatMul', [q, k]), scale]), mask]);
    const ctx = node('MatMul', [node('Softmax', [scores], { axis: -1 }), v]);
    const merged = node('Reshape', [node('Transpose', [ctx], { perm: [0, 2, 1, 3] }), mergeHeads]);
    const attn = linear(merged, `${p}.attention.output.dense`, H, H);
    x = layerNorm(node('Add', [attn, x]), `${p}.attention.output.LayerNorm`);
    // GELU as BERT computes it: 0.5 · x · (1 + erf(x / √2)).
    const h = linear(x, `${p}.intermediate.dense`, H, a.ffn);
    const erf = node('Erf', [node('Div', [h, fill(`${p}.sqrt2`, [1], Math.SQRT2)])]);
    const gelu = node('Mul', [node('Mul', [h, node('Add', [erf, fill(`${p}.one`, [1], 1)])]), fill(`${p}.half`, [1], 0.5)]);
    const out = linear(gelu, `${p}.output.dense`, a.ffn, H);
    x = layerNorm(node('Add', [out, x]), `${p}.output.LayerNorm`);
  }
  const outName = opts.head === 'logit' ? 'logits' : 'last_hidden_state';
  if (opts.head === 'logit') {
    // BERT's pooler (tanh of a dense layer over [CLS]) and a one-label classifier: the relevance logit.
    const cls = node('Gather', [x, i64('cls_idx', [0])], { axis: 1 });
    const pooled = node('Tanh', [linear(node('Squeeze', [cls, i64('squeeze_axis', [1])]), 'pooler.dense', H, H)]);
    nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [linear(pooled, 'classifier', H, 1)], output: [outName] }));
  } else nodes.push(onnx.NodeProto.create({ opType: 'Identity', input: [x], output: [outName] }));

  const i64Input = (name: string): InstanceType<typeof onnx.ValueInfoProto> =>
    onnx.ValueInfoProto.create({
      name,
      type: {
        tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'sequence' }] } },
      },
    });
  const graph = onnx.GraphProto.create({
    name: 'bert',
    node: nodes,
    initializer: inits,
    input: [i64Input('input_ids'), i64Input('attention_mask'), ...(opts.tokenTypeIds ? [i64Input('token_type_ids')] : [])],
    output: [
      onnx.ValueInfoProto.create({
        name: outName,
        type: {
          tensorType: {
            elemType: onnx.TensorProto.DataType.FLOAT,
            shape: {
              dim:
                opts.head === 'logit'
                  ? [{ dimParam: 'batch' }, { dimValue: 1 }]
                  : [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: H }],
            },
          },
        },
      }),
    ],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'kb make-test-model',
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}

export function tokenizerDir(): string {
  const corpora = process.env.KB_CORPORA ?? resolve(root, '../shared/corpora');
  return join(corpora, 'tokenizers', 'all-MiniLM-L6-v2');
}

/** The files sentence-transformers saves beside the model, which `kb models import` reads. */
export interface SentenceTransformersLayout {
  pooling: 'mean' | 'cls' | 'last';
  normalize?: boolean;
  prompts?: { query?: string; document?: string };
  maxSeqLength?: number;
}

function writeJson(file: string, v: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(v, null, 2));
}

function writeSentenceTransformers(out: string, hidden: number, st: SentenceTransformersLayout): void {
  const modules = [
    { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
    { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
    ...(st.normalize === false ? [] : [{ idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' }]),
  ];
  writeJson(join(out, 'modules.json'), modules);
  writeJson(join(out, '1_Pooling', 'config.json'), {
    word_embedding_dimension: hidden,
    pooling_mode_cls_token: st.pooling === 'cls',
    pooling_mode_mean_tokens: st.pooling === 'mean',
    pooling_mode_max_tokens: false,
    pooling_mode_mean_sqrt_len_tokens: false,
    pooling_mode_weightedmean_tokens: false,
    pooling_mode_lasttoken: st.pooling === 'last',
    include_prompt: true,
  });
  writeJson(join(out, 'config_sentence_transformers.json'), {
    __version__: { sentence_transformers: '3.0.1', transformers: '4.44.0', pytorch: '2.4.0' },
    prompts: st.prompts ?? {},
    default_prompt_name: null,
    similarity_fn_name: 'cosine',
  });
  writeJson(join(out, 'sentence_bert_config.json'), { max_seq_length: st.maxSeqLength ?? 256, do_lower_case: false });
}

/** Writes the model folder; returns its path. */
export function makeTestModel(opts: {
  arch: keyof typeof ARCHS;
  out: string;
  tokenTypeIds?: boolean;
  quantized?: boolean;
  /** A cross-encoder (one relevance logit) instead of an embedding model. */
  crossEncoder?: boolean;
  /** Also write the sentence-transformers files (modules.json, 1_Pooling, …). */
  sentenceTransformers?: SentenceTransformersLayout;
}): string {
  const a = ARCHS[opts.arch];
  const tok = tokenizerDir();
  if (!existsSync(join(tok, 'tokenizer.json'))) throw new Error(`the real tokenizer is needed from ${tok} (set KB_CORPORA)`);
  mkdirSync(join(opts.out, 'onnx'), { recursive: true });
  for (const f of TOKENIZER_FILES) {
    if (!existsSync(join(tok, f))) continue;
    copyFileSync(join(tok, f), join(opts.out, f));
    chmodSync(join(opts.out, f), 0o644); // the corpora are read-only; the copy need not be
  }
  writeJson(join(opts.out, 'config.json'), {
    architectures: [opts.crossEncoder ? 'BertForSequenceClassification' : 'BertModel'],
    model_type: 'bert',
    hidden_size: a.hidden,
    num_hidden_layers: a.layers,
    num_attention_heads: a.heads,
    intermediate_size: a.ffn,
    max_position_embeddings: a.positions,
    vocab_size: a.vocab,
    type_vocab_size: 2,
    ...(opts.crossEncoder ? { id2label: { 0: 'LABEL_0' }, label2id: { LABEL_0: 0 } } : {}),
    kb_test_model: opts.arch,
  });
  if (opts.sentenceTransformers) writeSentenceTransformers(opts.out, a.hidden, opts.sentenceTransformers);
  const file = opts.quantized ? 'model_quantized.onnx' : 'model.onnx';
  writeFileSync(
    join(opts.out, 'onnx', file),
    buildModel(a, {
      tokenTypeIds: opts.tokenTypeIds ?? true,
      quantized: opts.quantized ?? false,
      head: opts.crossEncoder ? 'logit' : 'hidden',
    }),
  );
  return opts.out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const get = (flag: string): string | undefined => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const arch = (get('--arch') ?? 'tiny') as keyof typeof ARCHS;
  const out = get('--out');
  const pooling = get('--st');
  if (!out || !(arch in ARCHS) || (pooling && !['mean', 'cls', 'last'].includes(pooling))) {
    console.error(
      'usage: npm run make-test-model -- --arch minilm-l6|small64|tiny [--no-token-type-ids] [--quantized] [--cross-encoder] [--st mean|cls|last] --out DIR',
    );
    process.exit(2);
  }
  makeTestModel({
    arch,
    out: resolve(out),
    tokenTypeIds: !args.includes('--no-token-type-ids'),
    quantized: args.includes('--quantized'),
    crossEncoder: args.includes('--cross-encoder'),
    ...(pooling ? { sentenceTransformers: { pooling: pooling as SentenceTransformersLayout['pooling'] } } : {}),
  });
  console.log(`wrote a random-weight ${arch} test model to ${resolve(out)}`);
}
