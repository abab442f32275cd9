// The last stage of a search: the result as the wire carries it — the hits, how many matched in all
// (passages, and documents found only by name), how long it took, and what each half said.
import { type ResolvedSearchParams, SCHEMA_VERSION, type SearchHit, type SearchResult } from '../../shared/wire.js';
import { type ParsedQuery, queryNotice } from './query.js';

export interface Halves {
  /** What words matched in all (null: words did not run), and whether that total is an estimate. */
  words: { total: number; estimated: boolean } | null;
  /** Meaning: how many hits only it found, or why it did not run. */
  meaning: { only: number } | { unavailable: string } | null;
}

/** `q`: the query as parsed for this search (what its limits left out is said). */
export function envelope(p: ResolvedSearchParams, q: ParsedQuery, results: SearchHit[], halves: Halves, started: number): SearchResult {
  const { words, meaning } = halves;
  const byName = results.filter((r) => r.retrieval.by_name).length;
  const meaningOnly = meaning && 'only' in meaning ? meaning.only : 0;
  // With meaning in it, the total counts passages found by either half once: an estimate.
  const estimated = (meaning !== null && 'only' in meaning) || words?.estimated === true;
  return {
    schema_version: SCHEMA_VERSION,
    query: p.query,
    mode: p.mode,
    results,
    total_matches: (words?.total ?? 0) + meaningOnly + byName,
    ...(estimated ? { total_matches_estimated: true } : {}),
    returned: results.length,
    took_ms: Math.round((performance.now() - started) * 100) / 100,
    ...(words ? { lexical: { status: 'ok' as const } } : {}),
    ...(p.mode === 'vector' && meaning && 'unavailable' in meaning ? {} : queryNotice(p.query, q.cut)),
    ...(meaning === null
      ? {}
      : 'only' in meaning
        ? { vector: { status: 'ok' as const } }
        : { vector: { status: 'unavailable' as const, reason: meaning.unavailable } }),
  };
}
