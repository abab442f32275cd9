// A candidate's analysis (search/analyze.ts) reads only the tokens that can be a query word when it
// needs no other counts: what it finds must be what reading every token finds.
import { describe, expect, it } from 'vitest';
import { analyze, type QueryWord } from '../src/worker/search/analyze.js';
import { stem } from '../src/worker/search/query.js';

const word = (text: string, prefix = false): QueryWord => ({ text, form: prefix ? text : stem(text), prefix, weight: 1 });

const BODY =
  'The Eyes were eyed, eyeing EYE-level ponies; a pony ran. Relational relate RELATING. ' +
  'Écoles and ecole, Über über, naïve naive. x X xylophone. Sensibility sensible. 東京 tokyo C c# 42 4x4 ' +
  'camelCaseWord snake_case_word ﬁne fine. Ⅻ ⅻ';

const CASES: QueryWord[][] = [
  [word('eye')],
  [word('eyed'), word('pony')],
  [word('relational'), word('sensibility')],
  [word('ecole'), word('uber'), word('naive')],
  [word('x'), word('c')],
  [word('xy', true), word('rel', true)],
  [word('', true)],
  [word('42'), word('4x4'), word('fine')],
  [word('camelcaseword'), word('snake')],
];

describe('analyze', () => {
  it('finds the same words, spans, counts and positions reading only the tokens a query word can be', () => {
    for (const words of CASES) {
      const all = analyze(words, 'Eyes and Ponies', 'Relating École', BODY, true);
      const few = analyze(words, 'Eyes and Ponies', 'Relating École', BODY, false);
      expect({ ...few, tf: null, fieldCounts: null }).toEqual({ ...all, tf: null, fieldCounts: null });
    }
    // The cases find something: the comparison is not of two empty analyses.
    const found = CASES.map((words) => analyze(words, '', '', BODY, false).matched.size);
    expect(found.every((n) => n > 0)).toBe(true);
  });

  it('reads "eyed" as the stem it has (the y after the first letter becomes i)', () => {
    const a = analyze([word('eyed')], '', '', 'They eyed it.', false);
    expect(a.spans).toEqual([[5, 9]]);
  });
});
