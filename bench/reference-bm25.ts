// The reference kb's ranking is measured against: plain Okapi BM25 (k1 1.2, b 0.75) over the whole
// record, Lucene's always-positive idf, English stopwords dropped from the query (a repeated query
// word counts as often as it is repeated), words stemmed as kb's index stems them (Porter, case and
// diacritics folded). Computed here, exhaustively over every document: no candidate cut-off.
import { indexForm } from '../src/worker/search/analyze.js';
import { isStopword } from '../src/worker/search/query.js';

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

export function stems(text: string): string[] {
  return [...text.matchAll(TOKEN)].map((m) => indexForm(m[0]).stem);
}

/** A query's content words as stems, repeats kept. */
export function queryStems(query: string): string[] {
  return [...query.matchAll(TOKEN)]
    .map((m) => indexForm(m[0]))
    .filter((f) => !isStopword(f.folded))
    .map((f) => f.stem);
}

export class ReferenceBm25 {
  private readonly postings = new Map<string, Map<number, number>>();
  private readonly lengths: number[];
  private readonly avgdl: number;

  constructor(
    private readonly docs: { id: string; text: string }[],
    private readonly k1 = 1.2,
    private readonly b = 0.75,
  ) {
    this.lengths = docs.map((d, i) => {
      const s = stems(d.text);
      for (const t of s) {
        const p = this.postings.get(t) ?? new Map<number, number>();
        p.set(i, (p.get(i) ?? 0) + 1);
        this.postings.set(t, p);
      }
      return s.length;
    });
    this.avgdl = this.lengths.reduce((a, b) => a + b, 0) / Math.max(1, docs.length);
  }

  df(stem: string): number {
    return this.postings.get(stem)?.size ?? 0;
  }

  idf(stem: string): number {
    const n = this.docs.length;
    const df = this.df(stem);
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /** Document ids, best first, at most k. */
  search(query: string, k = 100): string[] {
    const qtf = new Map<string, number>();
    for (const s of queryStems(query)) qtf.set(s, (qtf.get(s) ?? 0) + 1);
    const score = new Map<number, number>();
    for (const [t, q] of qtf) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = this.idf(t);
      for (const [d, tf] of p) {
        const norm = this.k1 * (1 - this.b + (this.b * this.lengths[d]!) / this.avgdl);
        score.set(d, (score.get(d) ?? 0) + (q * idf * tf * (this.k1 + 1)) / (tf + norm));
      }
    }
    return [...score]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, k)
      .map(([d]) => this.docs[d]!.id);
  }
}
