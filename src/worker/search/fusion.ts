// Combining the lexical and vector lists (shared/fusions.ts names the ways). Reciprocal Rank Fusion:
// score(d) = Σ w/(k + rank) over the lists that hold d; ranks 2 and 5 with k = 60 give 1/62 + 1/65.
// adaptive is RRF with the vector list's weight w from its own scores (meaningWeight); rrf gives
// both lists w = 1. Convex combination (--fusion convex) weighs min-max normalised scores instead:
// α·lex + (1 − α)·vec, a side that did not find d adding 0. Ties: lexical rank first, then chunk id.

export interface Fused {
  rowid: number;
  chunkId: string;
  fused: number;
  lexicalRank: number | null;
  vectorRank: number | null;
  lexicalShare: number;
  vectorShare: number;
}

export interface Ranked {
  rowid: number;
  chunkId: string;
  score: number;
}

export function rrf(lexical: Ranked[], vector: Ranked[], k: number, vectorWeight = 1): Fused[] {
  return combine(
    lexical,
    vector,
    (i) => 1 / (k + i + 1),
    (i) => vectorWeight / (k + i + 1),
  );
}

/** Where the gap is read: the best neighbour against the tenth (or the last, in a shorter list). */
const GAP_AT = 9;
/** The least the meaning half counts: a flat list still adds what the words missed. */
const LEAST = 0.25;

/**
 * How much the meaning half counts, from its own similarities (best first): fully when the best
 * neighbour stands at least `fullAt` above the tenth, in proportion below, never under a quarter.
 * Every query gets neighbours; only how clearly the best stand out says whether the model recognised
 * what was asked (with real models, a flat list is where meaning alone ranks worst: bench meaning).
 */
export function meaningWeight(similarities: readonly number[], fullAt: number): number {
  if (similarities.length < 2) return 1;
  const gap = similarities[0]! - similarities[Math.min(GAP_AT, similarities.length - 1)]!;
  return Math.min(1, Math.max(LEAST, gap / fullAt));
}

export function convex(lexical: Ranked[], vector: Ranked[], alpha: number): Fused[] {
  const norm = (xs: Ranked[], weight: number): ((i: number) => number) => {
    const scores = xs.map((x) => x.score);
    const lo = Math.min(...scores);
    const span = Math.max(...scores) - lo;
    // One candidate, or all equal: each gets the full weight.
    return (i) => weight * (span > 0 ? (scores[i]! - lo) / span : 1);
  };
  return combine(lexical, vector, norm(lexical, alpha), norm(vector, 1 - alpha));
}

function combine(lexical: Ranked[], vector: Ranked[], lexShare: (i: number) => number, vecShare: (i: number) => number): Fused[] {
  const byRow = new Map<number, Fused>();
  const entry = (rowid: number, chunkId: string): Fused => {
    let e = byRow.get(rowid);
    if (!e) {
      e = { rowid, chunkId, fused: 0, lexicalRank: null, vectorRank: null, lexicalShare: 0, vectorShare: 0 };
      byRow.set(rowid, e);
    }
    return e;
  };
  lexical.forEach((h, i) => {
    const e = entry(h.rowid, h.chunkId);
    e.lexicalRank = i + 1;
    e.lexicalShare = lexShare(i);
    e.fused += e.lexicalShare;
  });
  vector.forEach((h, i) => {
    const e = entry(h.rowid, h.chunkId);
    e.vectorRank = i + 1;
    e.vectorShare = vecShare(i);
    e.fused += e.vectorShare;
  });
  return [...byRow.values()].sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) ||
      (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0),
  );
}
