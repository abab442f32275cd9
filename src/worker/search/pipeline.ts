// A search as the engine answers it, end to end: the params checked (here, once: the edge of the
// search), words the index does not hold corrected, words and meaning searched (search.ts: parse →
// retrieve → fuse → names → hydrate → envelope) — by words alone, saying why, when the vector half is
// not there or fails, so a broken vector store never leaves a search unanswered — then reranked.
import { byMeaningAlone } from '../../shared/by-meaning.js';
import { type ResolvedSearchParams, type SearchParams, SearchParamsSchema, type SearchResult } from '../../shared/wire.js';
import { type ErrorCode, firstLine, KbError } from '../../shared/errors.js';
import { describeIssues } from '../../shared/issues.js';
import type { Core } from '../core.js';
import type { Searcher } from './search.js';
import { errorFields } from '../log.js';
import type { VectorService } from '../vectors/service.js';
import type { RerankService } from '../rerank/service.js';
import { correctedQuery } from './spelling.js';

const PROVIDER_FAILURES = new Set<ErrorCode>(['LLM_UNAVAILABLE', 'LLM_FAILED', 'MODEL_MISSING', 'MODEL_INVALID', 'TIMEOUT']);

export interface SearchDeps {
  core: Core;
  searcher: Searcher;
  vectors: VectorService;
  reranker: RerankService;
}

/** The params as the search takes them: checked against the contract, search.top the default size. */
export function resolveSearch(input: SearchParams, defaultTop: number): ResolvedSearchParams {
  const parsed = SearchParamsSchema.safeParse({ top: defaultTop, ...input });
  if (!parsed.success) throw new KbError('INVALID_ARGUMENT', describeIssues(parsed.error));
  return parsed.data;
}

export async function searchIndex(deps: SearchDeps, input: SearchParams): Promise<SearchResult> {
  const p = resolveSearch(input, deps.core.config.search.top);
  const r = await reranked(deps, p);
  // The query is the user's text: debug only.
  deps.core.log.debug({ query: p.query, mode: r.mode, hits: r.results.length, took_ms: r.took_ms }, 'search');
  return r;
}

/**
 * With reranking asked for (--rerank, or search.rerank), the best rerank.candidates fused hits are
 * re-scored and the top of them returned; an empty query, or no reranker, leaves the fused order.
 */
async function reranked(deps: SearchDeps, p: ResolvedSearchParams): Promise<SearchResult> {
  const want = p.rerank ?? deps.core.config.search.rerank;
  if (!want || !p.query.trim()) return corrected(deps, p);
  const started = performance.now();
  const r = await corrected(deps, { ...p, top: Math.max(p.top, deps.reranker.candidates) });
  const { hits, status } = await deps.reranker.rerank(r.corrected?.query ?? p.query, r.results);
  const results = hits.slice(0, p.top);
  return { ...r, results, returned: results.length, took_ms: Math.round((performance.now() - started) * 100) / 100, rerank: status };
}

/**
 * Words the index does not hold are corrected first (both halves then search the corrected query);
 * the result says so, keeping the query as typed. Not in vector mode: meaning has no typos to fix. In
 * hybrid mode a word the embedding model knows whole is a word, not a slip ("rest", which an index of
 * router notes would turn into "reset"): it is searched as typed — the meaning half finds what it
 * means — and the correction only offered.
 */
async function corrected(deps: SearchDeps, p: ResolvedSearchParams): Promise<SearchResult> {
  const fixes = !p.correct || p.mode === 'vector' || !p.query.trim() ? [] : await deps.searcher.spellingFixes(p.query, p.prefix);
  if (fixes.length === 0) return meaningOnly(await bothHalves(deps, p));
  const real =
    p.mode === 'hybrid'
      ? await wordsTheModelKnows(
          deps,
          fixes.map(([from]) => from),
        )
      : new Set<string>();
  const applied = fixes.filter(([from]) => !real.has(from));
  const offered = fixes.filter(([from]) => real.has(from));
  const searched = correctedQuery(p.query, applied);
  const r = meaningOnly(await bothHalves(deps, { ...p, query: searched }));
  return {
    ...r,
    query: p.query,
    ...(applied.length > 0 ? { corrected: { query: searched, words: pairs(applied) } } : {}),
    ...(offered.length > 0 ? { suggested: { query: correctedQuery(p.query, fixes), words: pairs(offered) } } : {}),
  };
}

const pairs = (fixes: [string, string][]): { from: string; to: string }[] => fixes.map(([from, to]) => ({ from, to }));

/** Which of these words the embedding model's tokenizer holds whole; none without a model of kb's own. */
async function wordsTheModelKnows(deps: SearchDeps, words: string[]): Promise<Set<string>> {
  try {
    const known = await deps.vectors.with((sem) => Promise.resolve(new Set(words.filter((w) => sem.embedder.knowsWord(w)))));
    return 'unavailable' in known ? new Set() : known;
  } catch {
    return new Set(); // the search itself says what is wrong with the vector half
  }
}

/** A hybrid list whose every hit came from the meaning half says so: none of them holds the words. */
function meaningOnly(r: SearchResult): SearchResult {
  const byMeaning = r.mode === 'hybrid' && r.results.length > 0 && r.results.every(byMeaningAlone);
  return byMeaning ? { ...r, meaning_only: true } : r;
}

async function bothHalves(deps: SearchDeps, p: ResolvedSearchParams): Promise<SearchResult> {
  const { core, searcher, vectors } = deps;
  if (p.mode === 'lexical') return searcher.search(p);
  try {
    const r = await vectors.with((sem) => searcher.search(p, sem));
    return 'unavailable' in r ? searcher.search(p, r) : r;
  } catch (e) {
    // The embedding model's server gone (Ollama stopped) leaves the words: the reason says how to bring it back.
    if (e instanceof KbError && PROVIDER_FAILURES.has(e.code)) return searcher.search(p, { unavailable: firstLine(e) });
    if (e instanceof KbError) throw e;
    core.log.warn(errorFields(e), 'the vector store failed: searching by words only');
    return searcher.search(p, { unavailable: `the vector store failed (${firstLine(e)}); searching by words only` });
  }
}
