// A search as the engine answers it: hybrid when the vector half is there, by words alone (saying
// why) when it is not or when it fails, so a broken vector store never leaves a search unanswered.
import type { SearchParams, SearchResult } from '../../shared/wire.js';
import { type ErrorCode, firstLine, KbError } from '../../shared/errors.js';
import type { Core } from '../core.js';
import type { Searcher } from './search.js';
import { errorFields } from '../log.js';
import type { VectorService } from '../vectors/service.js';
import type { RerankService } from '../rerank/service.js';

const PROVIDER_FAILURES = new Set<ErrorCode>(['LLM_UNAVAILABLE', 'LLM_FAILED', 'MODEL_MISSING', 'MODEL_INVALID', 'TIMEOUT']);

export async function searchIndex(
  core: Core,
  searcher: Searcher,
  vectors: VectorService,
  reranker: RerankService,
  params: SearchParams,
): Promise<SearchResult> {
  const r = await reranked(core, searcher, vectors, reranker, params);
  // The query is the user's text: debug only.
  core.log.debug({ query: params.query, mode: r.mode, hits: r.results.length, took_ms: r.took_ms }, 'search');
  return r;
}

/**
 * With reranking asked for (--rerank, or search.rerank), the best rerank.candidates fused hits are
 * re-scored and the top of them returned; an empty query, or no reranker, leaves the fused order.
 */
async function reranked(
  core: Core,
  searcher: Searcher,
  vectors: VectorService,
  reranker: RerankService,
  params: SearchParams,
): Promise<SearchResult> {
  const want = params.rerank ?? core.config.search.rerank;
  if (!want || !params.query.trim()) return answer(core, searcher, vectors, params);
  const started = performance.now();
  const top = params.top ?? core.config.search.top;
  const r = await answer(core, searcher, vectors, { ...params, top: Math.max(top, reranker.candidates) });
  const { hits, status } = await reranker.rerank(r.corrected?.query ?? params.query, r.results);
  const results = hits.slice(0, top);
  return { ...r, results, returned: results.length, took_ms: Math.round((performance.now() - started) * 100) / 100, rerank: status };
}

/**
 * Words the index does not hold are corrected first (both halves then search the corrected query);
 * the result says so, keeping the query as typed. Not in vector mode: meaning has no typos to fix.
 */
async function answer(core: Core, searcher: Searcher, vectors: VectorService, params: SearchParams): Promise<SearchResult> {
  const fix =
    params.correct === false || params.mode === 'vector' || !params.query.trim()
      ? null
      : searcher.correction(params.query, params.prefix === true);
  if (!fix) return searchAsTyped(core, searcher, vectors, params);
  const r = await searchAsTyped(core, searcher, vectors, { ...params, query: fix.query });
  return { ...r, query: params.query, corrected: fix };
}

async function searchAsTyped(core: Core, searcher: Searcher, vectors: VectorService, params: SearchParams): Promise<SearchResult> {
  const p = { top: core.config.search.top, ...params };
  if (p.mode === 'lexical') return searcher.search(p);
  try {
    const r = await vectors.with((sem) => searcher.searchWith(p, sem));
    return 'unavailable' in r ? searcher.search(p, r.unavailable) : r;
  } catch (e) {
    // The embedding model's server gone (Ollama stopped) leaves the words: the reason says how to bring it back.
    if (e instanceof KbError && PROVIDER_FAILURES.has(e.code)) return searcher.search(p, firstLine(e));
    if (e instanceof KbError) throw e;
    core.log.warn(errorFields(e), 'the vector store failed: searching by words only');
    return searcher.search(p, `the vector store failed (${firstLine(e)}); searching by words only`);
  }
}
