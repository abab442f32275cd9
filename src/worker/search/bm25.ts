// BM25F: each field's count of a word is weighted and normalised by that field's own length before
// saturation, so a word in a short title counts as a title word, not as one word of the whole chunk.
// The idf stays positive (FTS5's is zero for a word in half the chunks or more). k1 and b come from
// the configuration (search.k1, search.b): a word's weighted counts in all fields add up before
// saturation, so BM25F needs a larger k1 than BM25's 1.2 for a second occurrence to still count.

/** Title, heading, body. */
export type Fields = readonly [number, number, number];

export interface FieldModel {
  weights: Fields;
  /** Average tokens per chunk in each field. */
  avgLength: Fields;
  /** Chunks in the index. */
  n: number;
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation, 0 (none) to 1 (full). */
  b: number;
}

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/**
 * The part of a word's BM25F that differs from chunk to chunk: its counts, weighted and normalised by
 * each field's length, saturated. A word's score is this times its idf, so one word's ranking of the
 * chunks does not depend on how many hold it (search/tops.ts keeps rankings by it).
 */
export function saturation(counts: Fields, lengths: Fields, m: Omit<FieldModel, 'n'>): number {
  let tf = 0;
  for (let f = 0; f < 3; f++) {
    const c = counts[f]!;
    if (c === 0) continue;
    tf += (m.weights[f]! * c) / (1 - m.b + (m.b * lengths[f]!) / Math.max(1, m.avgLength[f]!));
  }
  return tf > 0 ? (tf * (m.k1 + 1)) / (tf + m.k1) : 0;
}

/** One word's BM25F score from its counts per field. */
export function bm25f(counts: Fields, lengths: Fields, df: number, m: FieldModel): number {
  const s = saturation(counts, lengths, m);
  return s > 0 ? idf(m.n, df) * s : 0;
}
