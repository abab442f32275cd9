// The score of a candidate from the query's own words: BM25F of each distinct stem, weighted by how
// often the query uses it (standard query-term frequency), plus the words of a phrase once more
// where the phrase occurs as written. A typed phrase's words are words of the query like any other
// (a quoted title pasted into a question is still its words); a phrase that is only another spelling
// of a typed word ("roll back" for "rollback") counts only where it occurs as written: "back" alone
// is not "rollback".
import type { Analysis } from './analyze.js';
import { bm25f, type FieldModel } from './bm25.js';
import { stem, type Term } from './query.js';

export interface QueryScorer {
  /** The whole score of one candidate (positive; higher is better). */
  score(a: Analysis): number;
  /** One typed term's BM25F in a candidate. */
  term(a: Analysis, t: Term): number;
}

/**
 * `terms` then `phrases` are the query words in the order analyze() was given them (`words[i]` is
 * `terms[i]`; phrase words follow); phrases from `firstAlternative` on are other spellings.
 */
export function queryScorer(
  terms: Term[],
  phrases: string[][],
  firstAlternative: number,
  df: Map<string, number>,
  fields: FieldModel,
): QueryScorer {
  const wordScore = (a: Analysis, st: string, i: number): number =>
    bm25f(a.fieldTf[i] ?? [0, 0, 0], a.fieldLength, df.get(st) ?? 0, fields);
  const scoring = new Map<string, { count: number; at: number }>();
  terms.forEach((t, i) => {
    if (!t.prefix) scoring.set(t.stem, { count: t.count, at: i });
  });
  let at = terms.length;
  const phraseWords = phrases.map((p, k) =>
    p.map((w) => {
      const st = stem(w);
      const e = scoring.get(st);
      if (k < firstAlternative) {
        if (e) e.count++;
        else scoring.set(st, { count: 1, at });
      }
      return { stem: st, at: at++ };
    }),
  );
  return {
    score(a) {
      let sum = 0;
      for (const [st, e] of scoring) sum += e.count * wordScore(a, st, e.at);
      for (const words of phraseWords) {
        if (
          inSequence(
            a.positions,
            words.map((w) => w.at),
          )
        )
          for (const w of words) sum += wordScore(a, w.stem, w.at);
      }
      return sum;
    },
    term: (a, t) => t.count * wordScore(a, t.stem, terms.indexOf(t)),
  };
}

/** Whether the words at these indexes occur one right after the other somewhere in the body. */
function inSequence(positions: number[][], at: number[]): boolean {
  const first = positions[at[0]!] ?? [];
  const rest = at.slice(1).map((i) => new Set(positions[i] ?? []));
  return first.some((p) => rest.every((set, k) => set.has(p + k + 1)));
}
