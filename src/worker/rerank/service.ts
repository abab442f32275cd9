// Reranking as the engine offers it: the configured cross-encoder, loaded on first use (a search
// without --rerank never loads it), re-scoring the best fused hits of a search.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchHit } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { CrossEncoder } from '../embed/cross-encoder.js';
import { rerankerSpec } from '../embed/registry.js';
import { readManifest, type Unavailable } from '../embed/resolve.js';
import { errorFields } from '../log.js';
import { blend, rerankText } from './blend.js';

export class RerankService {
  private modelP?: Promise<CrossEncoder | Unavailable>;
  /** The rerank.model modelP was loaded for: the Settings view or kb models use may change it. */
  private loaded?: string;

  constructor(private readonly core: Core) {}

  /** How many fused hits a reranked search asks for. */
  get candidates(): number {
    return this.core.config.rerank.candidates;
  }

  /** The configured reranker's folder and token limit, or why there is none. */
  private locate(): { dir: string; maxTokens: number } | Unavailable {
    const id = this.core.config.rerank.model;
    const dir = join(this.core.dataDir, 'models', id);
    const known = rerankerSpec(id);
    const manifest = known ? null : readManifest(dir);
    if (!known && manifest?.kind !== 'reranker') {
      return {
        unavailable: `${id} is not a reranker kb knows (rerank.model): pull ms-marco-MiniLM-L-6-v2 or bge-reranker-base, or import a cross-encoder folder with kb models import DIR --as NAME`,
      };
    }
    if (!existsSync(join(dir, 'tokenizer.json'))) return { unavailable: `no reranker installed — run: kb models pull ${id}` };
    return { dir, maxTokens: known?.maxTokens ?? (manifest?.kind === 'reranker' ? manifest.spec.maxTokens : 512) };
  }

  private open(): Promise<CrossEncoder | Unavailable> {
    if (this.modelP && this.loaded !== this.core.config.rerank.model) this.close();
    if (!this.modelP) {
      this.loaded = this.core.config.rerank.model;
      const where = this.locate();
      if ('unavailable' in where) return Promise.resolve(where);
      const p = import('../embed/cross-encoder.js').then((m) =>
        m.CrossEncoder.load(where.dir, this.core.config.rerank.model, where.maxTokens),
      );
      this.modelP = p;
      p.catch(() => {
        if (this.modelP === p) this.modelP = undefined; // a broken model: say so, and try again next time
      });
    }
    return this.modelP.catch((e: unknown) => ({ unavailable: `the reranker failed to load: ${(e as Error).message}` }));
  }

  /** The hits reordered by the cross-encoder blended with their fused rank, or as they were and why. */
  async rerank(
    query: string,
    hits: SearchHit[],
  ): Promise<{ hits: SearchHit[]; status: { status: 'ok' | 'unavailable'; reason?: string } }> {
    const model = await this.open();
    if ('unavailable' in model) return { hits, status: { status: 'unavailable', reason: model.unavailable } };
    const readable = hits.map((h, i) => ({ h, i })).filter(({ h }) => h.chunk_id !== '' && !h.retrieval.by_name);
    if (readable.length === 0) return { hits, status: { status: 'ok' } };
    try {
      const logits = await model.score(
        query,
        readable.map(({ h }) => rerankText(h)),
        this.core.config.rerank.max_tokens,
      );
      return { hits: blend(hits, new Map(readable.map(({ i }, j) => [i, logits[j]!]))), status: { status: 'ok' } };
    } catch (e) {
      this.core.log.warn(errorFields(e), 'reranking failed: hits keep their fused order');
      return { hits, status: { status: 'unavailable', reason: `reranking failed (${(e as Error).message}); hits are in fused order` } };
    }
  }

  close(): void {
    void this.modelP?.then(
      (m) => ('close' in m ? m.close() : undefined),
      () => undefined,
    );
    this.modelP = undefined;
  }
}
