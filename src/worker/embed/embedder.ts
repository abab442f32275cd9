// Text → vectors with onnxruntime and the model's own tokenizer.json. The tokenizer neither truncates
// nor pads, so both happen here: inputs are cut to the model's max tokens, sorted by length, and
// batched with padding only to the longest input of each batch. session.run is asynchronous (it
// runs on onnxruntime's own threads), so the engine's message loop stays free while a batch runs.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { KbError } from '../../shared/errors.js';
import type { EmbeddingSpec, Pooling } from './spec.js';
import type { PassageEmbedder, TextEmbedder } from './provider.js';

/** Onnx files a model folder may hold, preferred first (then any other onnx/model*.onnx). */
export const ONNX_FILES = ['onnx/model_quantized.onnx', 'onnx/model.onnx', 'model.onnx'];
/**
 * Tokens per batch (batch size × padded length): bounds memory whatever the input lengths. Small
 * batches keep the activations in cache: on kb's own chunks 2,048 tokens × 16 rows embedded ~25% more
 * per second than 8,192 × 64 (.bench budget probe, minilm-l6 architecture, 2 cores), and 512 as many
 * as 2,048 (all-MiniLM-L6-v2's real int8 graph on Cranfield: 76 passages/s either way) in runs of
 * ~35 ms — the longest a search shares the CPU with one (betweenRuns).
 */
const BATCH_TOKENS = 512;
const MAX_BATCH = 16;

function readJson(file: string, what: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new KbError('MODEL_INVALID', `${what} (${file}) is not readable JSON: ${(e as Error).message}`);
  }
}

export function onnxFileIn(dir: string): string | null {
  for (const f of ONNX_FILES) if (existsSync(join(dir, f))) return join(dir, f);
  // Exports named for their precision (model_fp16.onnx, model_int8.onnx, …): the smallest first.
  const others = existsSync(join(dir, 'onnx')) ? readdirSync(join(dir, 'onnx')).filter((f) => /^model.*\.onnx$/.test(f)) : [];
  others.sort((a, b) => statSync(join(dir, 'onnx', a)).size - statSync(join(dir, 'onnx', b)).size);
  return others[0] ? join(dir, 'onnx', others[0]) : null;
}

/** The model's config.json, tokenizer and the id(s) its post-processor appends (kept when truncating). */
export function loadTokenizer(dir: string, name: string): { tokenizer: Tokenizer; config: Record<string, unknown>; suffix: number[] } {
  for (const f of ['tokenizer.json', 'config.json']) {
    if (!existsSync(join(dir, f))) throw new KbError('MODEL_INVALID', `model ${name} is incomplete: ${f} is missing in ${dir}`);
  }
  const tokJson = readJson(join(dir, 'tokenizer.json'), 'the tokenizer');
  const tokConfig = existsSync(join(dir, 'tokenizer_config.json'))
    ? readJson(join(dir, 'tokenizer_config.json'), 'the tokenizer config')
    : {};
  const config = readJson(join(dir, 'config.json'), 'the model config');
  let tokenizer: Tokenizer;
  try {
    tokenizer = new Tokenizer(tokJson, tokConfig);
  } catch (e) {
    throw new KbError('MODEL_INVALID', `the tokenizer of ${name} cannot be read: ${(e as Error).message}`);
  }
  // A tokenizer from another model produces ids the embedding table does not have.
  const vocab = (tokJson.model as { vocab?: Record<string, number> } | undefined)?.vocab;
  const vocabSize = vocab ? Object.keys(vocab).length : 0;
  const modelVocab = typeof config.vocab_size === 'number' ? config.vocab_size : 0;
  if (vocabSize > 0 && modelVocab > 0 && vocabSize > modelVocab) {
    throw new KbError('MODEL_INVALID', `the tokenizer does not match the model: ${vocabSize} tokens, but the model knows ${modelVocab}`);
  }
  // BERT appends [SEP], XLM-R </s>, a decoder's tokenizer often nothing: whatever ends every input ends a cut one too.
  const empty = tokenizer.encode('').ids;
  const word = tokenizer.encode('hello').ids;
  const last = empty.at(-1);
  const suffix = last !== undefined && word.at(-1) === last ? [last] : [];
  return { tokenizer, config, suffix };
}

/** An onnxruntime session over the folder's weights, as a MODEL_INVALID error when it is not one. */
export async function openSession(dir: string, name: string): Promise<{ session: ort.InferenceSession; file: string }> {
  if (!existsSync(dir)) throw new KbError('MODEL_MISSING', `model ${name} is not installed (no folder ${dir})`);
  const file = onnxFileIn(dir);
  if (!file) throw new KbError('MODEL_INVALID', `model ${name} is incomplete: no ONNX file (${ONNX_FILES.join(', ')}) in ${dir}`);
  if (statSync(file).size < 1024) throw new KbError('MODEL_INVALID', `${file} is too small to be a model (a download cut short?)`);
  try {
    // onnxruntime's threads spin after each run waiting for more: on a server embedding one short
    // query per search that spinning was most of the CPU a search by meaning cost (npm run bench -- team).
    const spin = { allow_spinning: '0' };
    const options = { graphOptimizationLevel: 'all' as const, extra: { session: { intra_op: spin, inter_op: spin } } };
    return { session: await ort.InferenceSession.create(file, options), file };
  } catch (e) {
    throw new KbError('MODEL_INVALID', `${file} is not a usable ONNX model: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * Inputs beside input_ids and attention_mask that a graph may take: token types (zeros), positions
 * (0…n−1, as a decoder's export wants them) and an empty key/value cache (a decoder exported with past).
 */
export function extraFeeds(
  session: ort.InferenceSession,
  config: Record<string, unknown>,
  rows: number,
  len: number,
): Record<string, ort.Tensor> {
  const feeds: Record<string, ort.Tensor> = {};
  const names = session.inputNames;
  if (names.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(rows * len), [rows, len]);
  if (names.includes('position_ids')) {
    const pos = new BigInt64Array(rows * len);
    for (let r = 0; r < rows; r++) for (let c = 0; c < len; c++) pos[r * len + c] = BigInt(c);
    feeds.position_ids = new ort.Tensor('int64', pos, [rows, len]);
  }
  const past = names.filter((n) => n.startsWith('past_key_values'));
  if (past.length > 0) {
    const heads = Number(config.num_key_value_heads ?? config.num_attention_heads);
    const headDim = Number(config.head_dim ?? Number(config.hidden_size) / Number(config.num_attention_heads));
    for (const n of past) feeds[n] = new ort.Tensor('float32', new Float32Array(0), [rows, heads, 0, headDim]);
  }
  return feeds;
}

export class Embedder implements TextEmbedder {
  private constructor(
    readonly spec: EmbeddingSpec,
    readonly dir: string,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly suffix: number[],
    private readonly config: Record<string, unknown>,
    /** The graph's pooled output (sentence_embedding), or its token states. */
    private readonly output: string,
  ) {}

  get dimension(): number {
    return this.spec.dimension;
  }

  /** The graph pools (and applies any Dense layers) itself: it has a sentence_embedding output. */
  get pooledInGraph(): boolean {
    return this.output === 'sentence_embedding';
  }

  /**
   * Loads and checks a model folder; every way it can be wrong is a MODEL_* error, never a crash. A
   * spec with dimension 0 takes the dimension the model gives.
   */
  static async load(dir: string, spec: EmbeddingSpec): Promise<Embedder> {
    if (!existsSync(dir)) throw new KbError('MODEL_MISSING', `model ${spec.id} is not installed (no folder ${dir})`);
    const { tokenizer, config, suffix } = loadTokenizer(dir, spec.id);
    const { session, file } = await openSession(dir, spec.id);
    for (const needed of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(needed)) {
        throw new KbError('MODEL_INVALID', `${file} does not take ${needed} (inputs: ${session.inputNames.join(', ')})`);
      }
    }
    const output =
      ['sentence_embedding', 'last_hidden_state', 'token_embeddings'].find((o) => session.outputNames.includes(o)) ??
      session.outputNames[0]!;
    const e = new Embedder(spec, dir, session, tokenizer, suffix, config, output);
    const [probe] = await e.embed(['dimension check'], 'passage');
    if (!probe || probe.length === 0 || (spec.dimension > 0 && probe.length !== spec.dimension)) {
      throw new KbError(
        'MODEL_INVALID',
        `${spec.id} should give ${spec.dimension}-dimensional vectors, this model gives ${probe?.length ?? 0}`,
      );
    }
    if (spec.dimension === 0) return new Embedder({ ...spec, dimension: probe.length }, dir, session, tokenizer, suffix, config, output);
    return e;
  }

  /** Token ids, cut to the model's max tokens with the tokenizer's closing token kept. */
  encode(text: string): number[] {
    // Tokenising a whole 50 KB chunk to keep 256 tokens wastes time: no token is shorter than a character.
    const ids = this.tokenizer.encode(text.slice(0, this.spec.maxTokens * 16)).ids;
    if (ids.length <= this.spec.maxTokens) return ids;
    return [...ids.slice(0, this.spec.maxTokens - this.suffix.length), ...this.suffix];
  }

  /** Tokens and rows per inference batch (benchmarks tune it). */
  budget = { tokens: BATCH_TOKENS, rows: MAX_BATCH };

  /** Awaited before each inference run after the first: the passage thread gives way to searches there. */
  betweenRuns: (() => Promise<void>) | null = null;

  private specialTokens?: number;

  /** One token beside the special ones every input gets: the vocabulary holds the word whole. */
  knowsWord(word: string): boolean {
    const special = (this.specialTokens ??= this.tokenizer.encode('').ids.length);
    return this.tokenizer.encode(word).ids.length === special + 1;
  }

  /** How many tokens the model would see before truncation, special tokens included. */
  tokenCount(text: string): number {
    return this.tokenizer.encode(text).ids.length;
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.spec.queryPrefix : this.spec.passagePrefix;
    return this.embedIds(texts.map((t) => this.encode(prefix + t)));
  }

  /** Passages are embedded on a thread of their own (see threaded.ts). */
  async passages(): Promise<PassageEmbedder> {
    const { ThreadedEmbedder } = await import('./threaded.js');
    return ThreadedEmbedder.for(this);
  }

  /** The whole pipeline after tokenisation: batching, padding, inference, pooling. */
  async embedIds(encoded: number[][]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array<Float32Array>(encoded.length);
    const batches = planBatches(
      encoded.map((e) => e.length),
      this.budget,
    );
    const first = batches[0];
    for (const batch of batches) {
      if (batch !== first) await this.betweenRuns?.();
      const vectors = await this.runBatch(batch.map((i) => encoded[i]!));
      batch.forEach((i, j) => {
        out[i] = vectors[j]!;
      });
    }
    return out;
  }

  /** The raw session, for benchmarks that compare against bare onnxruntime. */
  get rawSession(): ort.InferenceSession {
    return this.session;
  }

  private async runBatch(batch: number[][]): Promise<Float32Array[]> {
    const rows = batch.length;
    const len = Math.max(1, ...batch.map((b) => b.length));
    const ids = new BigInt64Array(rows * len);
    const mask = new BigInt64Array(rows * len);
    batch.forEach((b, r) => {
      for (let c = 0; c < b.length; c++) {
        ids[r * len + c] = BigInt(b[c]!);
        mask[r * len + c] = 1n;
      }
    });
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', ids, [rows, len]),
      attention_mask: new ort.Tensor('int64', mask, [rows, len]),
      ...extraFeeds(this.session, this.config, rows, len),
    };
    const result = await this.session.run(feeds, [this.output]);
    const out = result[this.output];
    if (out?.dims.length === 2 && out.dims[0] === rows) {
      // Already one vector a row (pooled, and any Dense layers applied, inside the graph).
      const dim = out.dims[1]!;
      const data = out.data as Float32Array;
      return batch.map((_, r) => finish(data.slice(r * dim, (r + 1) * dim), this.spec.normalize));
    }
    if (!out || out.dims.length !== 3) throw new KbError('MODEL_INVALID', `the model gave no [batch, tokens, dim] output`);
    if (this.spec.pooling === 'none') {
      throw new KbError(
        'MODEL_INVALID',
        `${this.spec.id} gives a vector per token but does not say how to pool them: its folder has no 1_Pooling/config.json`,
      );
    }
    const dim = out.dims[2]!;
    const data = out.data as Float32Array;
    return batch.map((b, r) => finish(pool(data, r, len, dim, b.length, this.spec.pooling), this.spec.normalize));
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Which inputs go together: sorted by length, so each batch pads only to its own longest input, and
 * capped by tokens per batch so memory stays bounded whatever the lengths.
 */
export function planBatches(lengths: number[], budget = { tokens: BATCH_TOKENS, rows: MAX_BATCH }): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a]! - lengths[b]!);
  const batches: number[][] = [];
  let at = 0;
  while (at < order.length) {
    // Sorted by length: the batch's longest input is its last.
    let end = at + 1;
    while (end < order.length && end - at < budget.rows && (end - at + 1) * lengths[order[end]!]! <= budget.tokens) end++;
    batches.push(order.slice(at, end));
    at = end;
  }
  return batches;
}

/** Mean over the real (unpadded) tokens, the first ([CLS]) or the last real token's vector. */
function pool(data: Float32Array, row: number, len: number, dim: number, tokens: number, how: Pooling): Float32Array {
  const base = row * len * dim;
  if (how === 'cls') return data.slice(base, base + dim);
  // Inputs are padded on the right, so a row's last real token is at tokens − 1.
  if (how === 'last') return data.slice(base + Math.max(0, tokens - 1) * dim, base + Math.max(1, tokens) * dim);
  const v = new Float32Array(dim);
  for (let t = 0; t < tokens; t++) {
    const off = base + t * dim;
    for (let d = 0; d < dim; d++) v[d]! += data[off + d]!;
  }
  for (let d = 0; d < dim; d++) v[d]! /= Math.max(1, tokens);
  return v;
}

/** L2-normalised if the model wants it. */
function finish(v: Float32Array, normalize: boolean): Float32Array {
  if (!normalize) return v;
  let norm = 0;
  for (let d = 0; d < v.length; d++) norm += v[d]! * v[d]!;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < v.length; d++) v[d]! /= norm;
  return v;
}
