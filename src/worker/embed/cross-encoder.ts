// A cross-encoder: reads a query and a passage together and gives one relevance logit (MS MARCO
// MiniLM, BGE reranker, or any one-label sequence classifier exported to ONNX). Pairs are cut to a
// token budget with the tokenizer's closing token kept, and scored in one batch.
import type { Tokenizer } from '@huggingface/tokenizers';
import * as ort from 'onnxruntime-node';
import { KbError } from '../../shared/errors.js';
import { extraFeeds, loadTokenizer, openSession, planBatches } from './embedder.js';

const BUDGET = { tokens: 4096, rows: 32 };

export class CrossEncoder {
  private constructor(
    readonly id: string,
    readonly maxTokens: number,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly suffix: number[],
    private readonly config: Record<string, unknown>,
  ) {}

  static async load(dir: string, id: string, maxTokens: number): Promise<CrossEncoder> {
    const { tokenizer, config, suffix } = loadTokenizer(dir, id);
    const { session, file } = await openSession(dir, id);
    for (const needed of ['input_ids', 'attention_mask']) {
      if (!session.inputNames.includes(needed))
        throw new KbError('MODEL_INVALID', `${file} does not take ${needed} (inputs: ${session.inputNames.join(', ')})`);
    }
    const ce = new CrossEncoder(id, maxTokens, session, tokenizer, suffix, config);
    const probe = await ce.score('probe', ['a passage'], 32);
    if (probe.length !== 1 || !Number.isFinite(probe[0]))
      throw new KbError('MODEL_INVALID', `${id} gave no relevance score: is it a cross-encoder?`);
    return ce;
  }

  /** Token ids and segment ids of one pair, cut to `limit` tokens (the passage loses its end). */
  encodePair(query: string, passage: string, limit: number): { ids: number[]; types: number[] } {
    const max = Math.min(limit, this.maxTokens);
    // No token is shorter than a character: cut the texts before tokenising them whole.
    const enc = this.tokenizer.encode(query.slice(0, max * 2), { text_pair: passage.slice(0, max * 8), return_token_type_ids: true });
    const ids = enc.ids;
    const types = enc.token_type_ids ?? new Array<number>(ids.length).fill(0);
    if (ids.length <= max) return { ids, types };
    const keep = max - this.suffix.length;
    return {
      ids: [...ids.slice(0, keep), ...this.suffix],
      types: [...types.slice(0, keep), ...types.slice(ids.length - this.suffix.length)],
    };
  }

  /** One logit a passage (higher: more relevant), in the passages' order. */
  async score(query: string, passages: string[], limit: number): Promise<number[]> {
    const pairs = passages.map((p) => this.encodePair(query, p, limit));
    const out = new Array<number>(pairs.length);
    for (const batch of planBatches(
      pairs.map((p) => p.ids.length),
      BUDGET,
    )) {
      const rows = batch.length;
      const len = Math.max(1, ...batch.map((i) => pairs[i]!.ids.length));
      const ids = new BigInt64Array(rows * len);
      const mask = new BigInt64Array(rows * len);
      const types = new BigInt64Array(rows * len);
      batch.forEach((i, r) => {
        const p = pairs[i]!;
        for (let c = 0; c < p.ids.length; c++) {
          ids[r * len + c] = BigInt(p.ids[c]!);
          mask[r * len + c] = 1n;
          types[r * len + c] = BigInt(p.types[c]!);
        }
      });
      const feeds: Record<string, ort.Tensor> = {
        ...extraFeeds(this.session, this.config, rows, len),
        input_ids: new ort.Tensor('int64', ids, [rows, len]),
        attention_mask: new ort.Tensor('int64', mask, [rows, len]),
      };
      if (this.session.inputNames.includes('token_type_ids')) feeds.token_type_ids = new ort.Tensor('int64', types, [rows, len]);
      const name = this.session.outputNames.includes('logits') ? 'logits' : this.session.outputNames[0]!;
      const logits = (await this.session.run(feeds, [name]))[name];
      if (!logits || logits.dims[0] !== rows || (logits.dims.length === 2 && logits.dims[1] !== 1) || logits.dims.length > 2) {
        throw new KbError('MODEL_INVALID', `${this.id} should give one logit a pair, it gives [${logits?.dims.join(', ') ?? ''}]`);
      }
      const data = logits.data as Float32Array;
      batch.forEach((i, r) => {
        out[i] = data[r]!;
      });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}
