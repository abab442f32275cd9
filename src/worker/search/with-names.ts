// The stage that adds documents found by their file name, tag, or title (while they have no passages)
// to the passages a search found: first when the query is the name itself, else after the best passage.
import type { ResolvedSearchParams, Retrieval, SearchHit } from '../../shared/wire.js';
import type { Hydrator } from './hydrate.js';
import type { Named, NameMatch, NameSearcher } from './names.js';

/**
 * Adds the documents whose file name (or tag, or title while they have no passages) holds every word
 * typed and that no passage found:
 * first when the query is the name itself (`jfk.mp3`), else after the best passage. A document
 * with no passages yet (a recording waiting for a speech model) comes with the reason.
 */
export async function withNames(
  names: NameSearcher,
  hydrator: Hydrator,
  results: SearchHit[],
  p: ResolvedSearchParams,
  /** names.lookup(), started beside the passages' search. */
  named: Promise<Named[]>,
): Promise<SearchHit[]> {
  const found = new Set(results.map((r) => r.doc_id));
  const all = await names.matches(await named, found, p.top);
  if (all.length === 0) return results;
  // Named exactly and found by its passages too: its best passage goes first.
  const top = results[0]?.score ?? 1;
  const namedExactly = new Set(all.filter((m) => m.exact && found.has(m.doc.id)).map((m) => m.doc.id));
  const firsts = results.filter((r, i) => namedExactly.has(r.doc_id) && results.findIndex((x) => x.doc_id === r.doc_id) === i);
  // Found by its passages as well: not a name-only hit (total_matches counts it once already).
  const lifted = firsts.map((h) => ({ ...h, score: Math.max(h.score, top) }));
  const others = results.filter((r) => !firsts.includes(r));
  const matches = all.filter((m) => !found.has(m.doc.id));
  const method = results[0]?.retrieval.method ?? (p.mode === 'hybrid' ? 'hybrid' : 'lexical');
  const byName = (m: NameMatch, score: number): Promise<SearchHit> => nameHit(hydrator, m, score, method);
  const exact = await Promise.all(matches.filter((m) => m.exact).map((m) => byName(m, top)));
  const rest = await Promise.all(matches.filter((m) => !m.exact).map((m) => byName(m, top)));
  const merged = [...lifted, ...exact, ...others.slice(0, 1), ...rest, ...others.slice(1)].slice(0, p.top);
  return merged.map((h, i) => ({ ...h, rank: i + 1 }));
}

/** A document found by name (or opened) as a hit: at its first passage, or — with none yet — at its start, with why. */
export async function nameHit(hydrator: Hydrator, m: NameMatch, score: number, method: Retrieval['method']): Promise<SearchHit> {
  const retrieval: Retrieval = {
    method,
    lexical_rank: null,
    lexical_score: null,
    vector_rank: null,
    vector_score: null,
    fusion_score: null,
    by_name: true,
  };
  if (m.firstChunk !== null) {
    const [hit] = await hydrator.hydrate([{ rowid: m.firstChunk, score, retrieval, matched: [], spans: [] }]);
    if (hit) return hit;
  }
  return hydrator.chunkless(m, score, retrieval);
}
