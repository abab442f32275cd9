// Queries of `npm run bench -- vocabularies`, drawn from a library's own passages the way people type:
// a word picked from a random passage (so common words come up as often as they are written), several
// of the library's commonest words, a rare word beside common ones, a phrase copied from a passage,
// a query whose last word is still being typed, and long queries. The same queries go to kb and to
// Tantivy (bench/tantivy/run.py).
import { isStopword } from '../src/worker/search/query.js';
import { Rng } from './corpus.js';

export const QUERY_CLASSES = ['one word', 'common words', 'rare + common', 'phrase', 'prefix', '5–6 words'] as const;
export type QueryClass = (typeof QUERY_CLASSES)[number];

export interface BenchQuery {
  cls: QueryClass;
  words: string[];
  phrase: boolean;
  /** The last word is a prefix (search as you type). */
  prefix: boolean;
}

/** The query as kb's search box takes it. */
export const kbQuery = (q: BenchQuery): string => (q.phrase ? `"${q.words.join(' ')}"` : q.words.join(' '));

const WORD = /[\p{L}\p{N}]+/gu;
const wordsOf = (text: string): string[] =>
  (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 3 && w.length <= 20 && !/^\d+$/.test(w));

export function benchQueries(passages: readonly string[], perClass: number, seed = 99): BenchQuery[] {
  const rng = new Rng(seed);
  const df = new Map<string, number>();
  for (const p of passages) for (const w of new Set(wordsOf(p))) df.set(w, (df.get(w) ?? 0) + 1);
  const byDf = [...df].filter(([w]) => !isStopword(w)).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const common = byDf.slice(0, 300).map(([w]) => w);
  const rare = byDf.filter(([, n]) => n >= 2 && n <= 20).map(([w]) => w);
  /** A word as written: from a random passage, so frequent words come up as often as they occur. */
  const typed = (): string => {
    for (;;) {
      const ws = wordsOf(rng.pick(passages)).filter((w) => !isStopword(w));
      if (ws.length > 0) return rng.pick(ws);
    }
  };
  const phrase = (): string[] => {
    for (;;) {
      const ws = (rng.pick(passages).toLowerCase().match(WORD) ?? []).filter((w) => w.length >= 2);
      if (ws.length < 4) continue;
      const n = 2 + rng.int(2);
      const at = rng.int(ws.length - n);
      const got = ws.slice(at, at + n);
      if (got.some((w) => !isStopword(w) && w.length >= 3)) return got;
    }
  };
  const out: BenchQuery[] = [];
  for (let i = 0; i < perClass; i++) {
    const plain = (cls: QueryClass, words: string[]): BenchQuery => ({ cls, words, phrase: false, prefix: false });
    out.push(plain('one word', [typed()]));
    out.push(
      plain(
        'common words',
        Array.from({ length: 2 + rng.int(3) }, () => rng.pick(common)),
      ),
    );
    out.push(
      plain('rare + common', [
        rare.length > 0 ? rng.pick(rare) : typed(),
        ...Array.from({ length: 1 + rng.int(2) }, () => rng.pick(common)),
      ]),
    );
    out.push({ cls: 'phrase', words: phrase(), phrase: true, prefix: false });
    const typing = Array.from({ length: 1 + rng.int(5) }, typed);
    const last = typing.at(-1)!;
    typing[typing.length - 1] = last.slice(0, Math.min(last.length, 2 + rng.int(4)));
    out.push({ cls: 'prefix', words: typing, phrase: false, prefix: true });
    out.push(plain('5–6 words', Array.from({ length: 5 + rng.int(2) }, typed)));
  }
  return out;
}
