// How a cross-encoder's scores reorder fused hits. Position-aware, as qmd blends: the fused rank keeps
// most of the say near the top (an exact phrase found by words is not buried by a weak reranker) and
// gives the reranker more of it further down, where fusion is least sure.
import type { SearchHit } from '../../shared/wire.js';

export function fusedWeight(rank: number): number {
  return rank <= 3 ? 0.75 : rank <= 10 ? 0.6 : 0.4;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/** What the reranker reads of a hit: where it is (heading or title) and the part the snippet shows. */
export function rerankText(hit: SearchHit): string {
  const where = hit.citation.section || hit.source.title;
  return where ? `${where}\n${hit.snippet}` : hit.snippet;
}

/**
 * The hits in their new order, each carrying its reranker score and fused rank. Hits found by name
 * (no passage to read) keep their places; the others move among the remaining places.
 */
export function blend(hits: SearchHit[], logits: Map<number, number>): SearchHit[] {
  const movable = hits.map((h, i) => ({ h, i })).filter(({ i }) => logits.has(i));
  const scored = movable.map(({ h, i }, j) => {
    const logit = logits.get(i)!;
    const score = sigmoid(logit);
    const rank = j + 1;
    const w = fusedWeight(rank);
    return {
      hit: { ...h, score: w / rank + (1 - w) * score, retrieval: { ...h.retrieval, rerank: { score, logit, fused_rank: rank } } },
      blended: w / rank + (1 - w) * score,
    };
  });
  const ordered = [...scored].sort((a, b) => b.blended - a.blended).map((s) => s.hit);
  const out = [...hits];
  movable.forEach(({ i }, j) => {
    out[i] = ordered[j]!;
  });
  return out.map((h, i) => ({ ...h, rank: i + 1 }));
}
