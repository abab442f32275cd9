// BM25F: each field's count of a word is weighted and normalised by that field's own length before
// saturation, so a word in a short title counts as a title word, not as one word of the whole chunk.
// FTS5's k1 and b; the idf that stays positive (FTS5's is zero for a word in half the chunks or more).

export const K1 = 1.2;
export const B = 0.75;

/** Title, heading, body. */
export type Fields = readonly [number, number, number];

export interface FieldModel {
  weights: Fields;
  /** Average tokens per chunk in each field. */
  avgLength: Fields;
  /** Chunks in the index. */
  n: number;
}

export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** One word's BM25F score from its counts per field. */
export function bm25f(counts: Fields, lengths: Fields, df: number, m: FieldModel): number {
  let tf = 0;
  for (let f = 0; f < 3; f++) {
    const c = counts[f]!;
    if (c === 0) continue;
    tf += (m.weights[f]! * c) / (1 - B + (B * lengths[f]!) / Math.max(1, m.avgLength[f]!));
  }
  return tf > 0 ? (idf(m.n, df) * tf * (K1 + 1)) / (tf + K1) : 0;
}
