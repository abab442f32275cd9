// Pseudo-relevance feedback in the manner of RM3: the words that the best first-pass hits of a long
// question share (the question's own words included, so they are re-weighted too), weighted by how much of those hits they make up and how rare they are, become an
// expansion model; every candidate is then re-scored by how well it matches that model (bm25 term
// saturation), interpolated with the original score. It helps when the user's words differ from the
// document's, and needs no second full-text query: the candidates' term counts are already known.
// Feedback words are scored with BM25F, exactly as the query's own words are.
import { bm25f, type FieldModel, type Fields } from './bm25.js';
import { isStopword } from './query.js';

export interface FeedbackStats {
  docFreq(stems: string[]): Promise<Map<string, number>>;
  idf(df: number): number;
}

export interface ExpansionTerm {
  stem: string;
  /** Share of the expansion model, summing to 1. */
  weight: number;
  df: number;
}

/** The expansion model from the term counts of the feedback hits (best first). */
export async function expansionModel(
  stats: FeedbackStats,
  feedback: { tf: Map<string, number>; length: number }[],
  maxTerms: number,
): Promise<ExpansionTerm[]> {
  const weight = new Map<string, number>();
  const docsWith = new Map<string, number>();
  feedback.forEach((d, rank) => {
    if (d.length === 0) return;
    // Higher-ranked hits say more about what the question means.
    const docWeight = 1 / (1 + rank * 0.25);
    for (const [s, n] of d.tf) {
      if (s.length < 3 || isStopword(s) || /^\d+$/.test(s)) continue;
      weight.set(s, (weight.get(s) ?? 0) + (n / d.length) * docWeight);
      docsWith.set(s, (docsWith.get(s) ?? 0) + 1);
    }
  });
  const minDocs = feedback.length >= 4 ? 2 : 1;
  const pool = [...weight.entries()]
    .filter(([s]) => (docsWith.get(s) ?? 0) >= minDocs)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, maxTerms * 4);
  const df = await stats.docFreq(pool.map(([s]) => s));
  const scored = pool
    .filter(([s]) => df.has(s))
    .map(([s, w]) => ({ stem: s, w: w * stats.idf(df.get(s)!), df: df.get(s)! }))
    .sort((a, b) => b.w - a.w || (a.stem < b.stem ? -1 : 1))
    .slice(0, maxTerms);
  const sum = scored.reduce((acc, t) => acc + t.w, 0);
  return sum > 0 ? scored.map((t) => ({ stem: t.stem, weight: t.w / sum, df: t.df })) : [];
}

/** BM25F of one candidate against the expansion model, scored as the query's own words are. */
export function expansionScore(
  model: ExpansionTerm[],
  doc: { fieldCounts: readonly Map<string, number>[]; fieldLength: Fields },
  fields: FieldModel,
): number {
  let s = 0;
  for (const t of model) {
    const counts: Fields = [
      doc.fieldCounts[0]?.get(t.stem) ?? 0,
      doc.fieldCounts[1]?.get(t.stem) ?? 0,
      doc.fieldCounts[2]?.get(t.stem) ?? 0,
    ];
    s += t.weight * bm25f(counts, doc.fieldLength, t.df, fields);
  }
  return s;
}
