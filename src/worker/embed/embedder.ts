// Text → vectors with onnxruntime and the model's own tokenizer.json. The tokenizer neither truncates
// nor pads, so both happen here: inputs are cut to the model's max tokens, sorted by length, and
// batched with padding only to the longest input of each batch. session.run is asynchronous (it
// runs on onnxruntime's own threads), so the engine's message loop stays free while a batch runs.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { KbError } from '../../shared/errors.js';
import type { ModelSpec } from './registry.js';

/** Onnx files a model folder may hold, preferred first. */
export const ONNX_FILES = ['onnx/model_quantized.onnx', 'onnx/model.onnx', 'model.onnx'];
/**
 * Tokens per batch (batch size × padded length): bounds memory whatever the input lengths. Small
 * batches keep the activations in cache: on kb's own chunks 2,048 tokens × 16 rows embeds ~25% more
 * per second than 8,192 × 64 (.bench budget probe, minilm-l6 architecture, 2 cores).
 */
const BATCH_TOKENS = 2048;
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
  return null;
}

export class Embedder {
  private constructor(
    readonly spec: ModelSpec,
    readonly dir: string,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly sep: number,
    private readonly takesTokenTypes: boolean,
  ) {}

  get dimension(): number {
    return this.spec.dimension;
  }

  /** Loads and checks a model folder; every way it can be wrong is a MODEL_* error, never a crash. */
  static async load(dir: string, spec: ModelSpec): Promise<Embedder> {
    if (!existsSync(dir)) throw new KbError('MODEL_MISSING', `model ${spec.id} is not installed (no folder ${dir})`);
    for (const f of ['tokenizer.json', 'config.json']) {
      if (!existsSync(join(dir, f))) throw new KbError('MODEL_INVALID', `model ${spec.id} is incomplete: ${f} is missing in ${dir}`);
    }
    const onnxFile = onnxFileIn(dir);
    if (!onnxFile) throw new KbError('MODEL_INVALID', `model ${spec.id} is incomplete: no ONNX file (${ONNX_FILES.join(', ')}) in ${dir}`);
    if (statSync(onnxFile).size < 1024) throw new KbError('MODEL_INVALID', `${onnxFile} is too small to be a model (a download cut short?)`);

    const tokJson = readJson(join(dir, 'tokenizer.json'), 'the tokenizer');
    const tokConfig = existsSync(join(dir, 'tokenizer_config.json')) ? readJson(join(dir, 'tokenizer_config.json'), 'the tokenizer config') : {};
    const config = readJson(join(dir, 'config.json'), 'the model config');
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(tokJson, tokConfig);
    } catch (e) {
      throw new KbError('MODEL_INVALID', `the tokenizer of ${spec.id} cannot be read: ${(e as Error).message}`);
    }
    // A tokenizer from another model produces ids the embedding table does not have.
    const vocab = (tokJson.model as { vocab?: Record<string, number> } | undefined)?.vocab;
    const vocabSize = vocab ? Object.keys(vocab).length : 0;
    const modelVocab = typeof config.vocab_size === 'number' ? config.vocab_size : 0;
    if (vocabSize > 0 && modelVocab > 0 && vocabSize > modelVocab) {
      throw new KbError('MODEL_INVALID', `the tokenizer does not match the model: ${vocabSize} tokens, but the model knows ${modelVocab}`);
    }
    const sep = tokenizer.encode('').ids.at(-1) ?? 102;

    let session: ort.InferenceSession;
    try {
      session = await ort.InferenceSession.create(onnxFile, { graphOptimizationLevel: 'all' });
    } catch (e) {
      throw new KbError('MODEL_INVALID', `${onnxFile} is not a usable ONNX model: ${(e as Error).message.split('\n')[0]}`);
    }
    for (const needed of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(needed)) {
        throw new KbError('MODEL_INVALID', `${onnxFile} does not take ${needed} (inputs: ${session.inputNames.join(', ')})`);
      }
    }
    const e = new Embedder(spec, dir, session, tokenizer, sep, session.inputNames.includes('token_type_ids'));
    const [probe] = await e.embed(['dimension check'], 'passage');
    if (!probe || probe.length !== spec.dimension) {
      throw new KbError('MODEL_INVALID', `${spec.id} should give ${spec.dimension}-dimensional vectors, this model gives ${probe?.length ?? 0}`);
    }
    return e;
  }

  /** Token ids, cut to the model's max tokens with the final [SEP] kept. */
  encode(text: string): number[] {
    // Tokenising a whole 50 KB chunk to keep 256 tokens wastes time: no token is shorter than a character.
    const ids = this.tokenizer.encode(text.slice(0, this.spec.maxTokens * 16)).ids;
    if (ids.length <= this.spec.maxTokens) return ids;
    return [...ids.slice(0, this.spec.maxTokens - 1), this.sep];
  }

  /** Tokens and rows per inference batch (benchmarks tune it). */
  budget = { tokens: BATCH_TOKENS, rows: MAX_BATCH };

  /** How many tokens the model would see before truncation, [CLS] and [SEP] included. */
  tokenCount(text: string): number {
    return this.tokenizer.encode(text).ids.length;
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.spec.queryPrefix : this.spec.passagePrefix;
    return this.embedIds(texts.map((t) => this.encode(prefix + t)));
  }

  /** The whole pipeline after tokenisation: batching, padding, inference, pooling. */
  async embedIds(encoded: number[][]): Promise<Float32Array[]> {
    const out: Float32Array[] = new Array<Float32Array>(encoded.length);
    for (const batch of planBatches(encoded.map((e) => e.length), this.budget)) {
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
    };
    if (this.takesTokenTypes) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(rows * len), [rows, len]);
    const result = await this.session.run(feeds);
    const hidden = result[this.session.outputNames[0]!];
    if (!hidden || hidden.dims.length !== 3) throw new KbError('MODEL_INVALID', `the model gave no [batch, tokens, dim] output`);
    const dim = hidden.dims[2]!;
    const data = hidden.data as Float32Array;
    return batch.map((b, r) => pool(data, r, len, dim, b.length, this.spec.pooling, this.spec.normalize));
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

/** Mean over the real (unpadded) tokens, or the [CLS] vector; then L2-normalised if the model wants it. */
function pool(data: Float32Array, row: number, len: number, dim: number, tokens: number, how: 'mean' | 'cls', normalize: boolean): Float32Array {
  const v = new Float32Array(dim);
  const base = row * len * dim;
  if (how === 'cls') v.set(data.subarray(base, base + dim));
  else {
    for (let t = 0; t < tokens; t++) {
      const off = base + t * dim;
      for (let d = 0; d < dim; d++) v[d]! += data[off + d]!;
    }
    for (let d = 0; d < dim; d++) v[d]! /= Math.max(1, tokens);
  }
  if (normalize) {
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += v[d]! * v[d]!;
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dim; d++) v[d]! /= norm;
  }
  return v;
}
