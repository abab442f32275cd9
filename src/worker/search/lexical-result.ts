// What lexical retrieval returns, whichever path found the hits.
export interface LexicalHit {
  rowid: number;
  /** Normalised to (0, 1): s / (1 + s) of the final score s. */
  score: number;
  bm25: number | null;
  coverage: number | null;
  proximity: number | null;
  /** What feedback added to the score; null when it did not run. */
  feedback: number | null;
  matched: string[];
  /** Where query words occur in the chunk text, for snippets. */
  spans: [number, number][];
}

export interface LexicalResult {
  hits: LexicalHit[];
  total: number;
  /** True when `total` is estimated from term frequencies rather than counted. */
  totalEstimated: boolean;
  ftsQuery: string | null;
  /** How the hits were found; 'substring' uses the trigram index. */
  strategy: 'fts' | 'substring' | 'raw' | 'none';
}

export const NO_HITS: LexicalResult = { hits: [], total: 0, totalEstimated: false, ftsQuery: null, strategy: 'none' };

/** A negative FTS-style score (lower is better) as (0, 1), higher is better. */
export function normalise(raw: number): number {
  return -raw / (1 + Math.abs(raw));
}
