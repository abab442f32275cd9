// One answer from two indexes: this machine's and the team server's, each ranked by its own engine.
// Their scores are not comparable (different collections, different statistics), so the lists are
// fused by rank alone — Reciprocal Rank Fusion, as a hybrid search fuses words and meaning — and each
// server hit says where it came from. Two disjoint lists interleave; ties go to this machine's hit.
import type { SearchResult } from '../../shared/wire.js';

export function fuseAcross(local: SearchResult, server: SearchResult | Error, origin: string, k: number, top: number): SearchResult {
  if (server instanceof Error) {
    const said = `the team server at ${origin} did not answer (${server.message}): this computer's results only`;
    return { ...local, notice: local.notice ? `${local.notice} — ${said}` : said };
  }
  const scored = [
    ...local.results.map((hit, i) => ({ hit, rrf: 1 / (k + i + 1), side: 0 })),
    ...server.results.map((hit, i) => ({ hit: { ...hit, from: origin }, rrf: 1 / (k + i + 1), side: 1 })),
  ].sort((a, b) => b.rrf - a.rrf || a.side - b.side);
  const results = scored.slice(0, top).map((s, i) => ({ ...s.hit, rank: i + 1 }));
  return {
    ...local,
    results,
    returned: results.length,
    total_matches: local.total_matches + server.total_matches,
    ...(local.total_matches_estimated || server.total_matches_estimated ? { total_matches_estimated: true } : {}),
    took_ms: Math.max(local.took_ms, server.took_ms),
  };
}
