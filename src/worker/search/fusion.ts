// Reciprocal Rank Fusion (design.md, "Search"): score(d) = Σ 1/(k + rank) over the lists that hold d.
// Ranks 2 and 5 with k = 60 give 1/62 + 1/65 ≈ 0.0315. Ties: lexical rank first, then chunk id.

export interface Fused {
  rowid: number;
  chunkId: string;
  fused: number;
  lexicalRank: number | null;
  vectorRank: number | null;
  lexicalShare: number;
  vectorShare: number;
}

export function rrf(lexical: { rowid: number; chunkId: string }[], vector: { rowid: number; chunkId: string }[], k: number): Fused[] {
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
    e.lexicalShare = 1 / (k + i + 1);
    e.fused += e.lexicalShare;
  });
  vector.forEach((h, i) => {
    const e = entry(h.rowid, h.chunkId);
    e.vectorRank = i + 1;
    e.vectorShare = 1 / (k + i + 1);
    e.fused += e.vectorShare;
  });
  return [...byRow.values()].sort(
    (a, b) =>
      b.fused - a.fused ||
      (a.lexicalRank ?? Infinity) - (b.lexicalRank ?? Infinity) ||
      (a.chunkId < b.chunkId ? -1 : a.chunkId > b.chunkId ? 1 : 0),
  );
}
