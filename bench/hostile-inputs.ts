// Pathological requests, generated from a seed, of every kind a reader may send: globs that make a
// backtracking matcher explode, raw FTS5 / tsquery expressions (prefix floods, NEAR, deep nesting,
// huge phrases), long and many-worded queries, CJK text searched by substring, the biggest pages and
// offsets the contract allows, filters the Library turns into SQL, document targets and fragments.
import { Rng } from './corpus.js';

export interface HostileCall {
  /** What the input attacks, for the per-class figures. */
  kind: string;
  method: string;
  params: Record<string, unknown>;
}

const rep = (s: string, n: number): string => Array.from({ length: n }, () => s).join('');

/** Letters and symbols a hostile query is made of: FTS5 and tsquery operators, quotes, wildcards. */
const SYMBOLS = [
  '*',
  '?',
  '"',
  "'",
  '(',
  ')',
  '{',
  '}',
  '[',
  ']',
  ':',
  '^',
  '-',
  '+',
  '&',
  '|',
  '!',
  '<',
  '>',
  ',',
  '\\',
  '/',
  '%',
  '_',
  '~',
  '.',
];

function word(rng: Rng, words: string[]): string {
  return rng.pick(words);
}

function garbage(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += rng.next() < 0.5 ? rng.pick(SYMBOLS) : String.fromCharCode(97 + rng.int(26));
  return s;
}

const GENERATORS: Record<string, (rng: Rng, words: string[]) => Omit<HostileCall, 'kind'>> = {
  'glob: backtracking stars': (rng) => ({
    method: 'search',
    params: { query: 'flow', mode: 'lexical', path: rep(rng.pick(['*?', '*a', '**', '*/*', '?*', '[a-z]*']), 5 + rng.int(60)) },
  }),
  'glob: braces and classes': (rng) => ({
    method: 'search',
    params: {
      query: 'flow',
      mode: 'lexical',
      path: rng.next() < 0.5 ? `${rep('{a,b,', 1 + rng.int(7))}c${rep('}', 8)}` : rep('[!a-z][a-c]{x,y}', 1 + rng.int(40)),
    },
  }),
  'glob: long or unique': (rng, words) => ({
    method: 'search',
    params: { query: word(rng, words), path: `**/${garbage(rng, 10 + rng.int(900))}` },
  }),
  'raw: prefix flood': (rng) => ({
    method: 'search',
    params: {
      query: `'${Array.from({ length: 1 + rng.int(40) }, () => `${String.fromCharCode(97 + rng.int(26))}*`).join(' OR ')}'`,
      mode: 'lexical',
    },
  }),
  'raw: NEAR': (rng, words) => ({
    method: 'search',
    params: {
      query: `'NEAR(${Array.from({ length: 2 + rng.int(30) }, () => (rng.next() < 0.5 ? `${word(rng, words).slice(0, 1)}*` : word(rng, words))).join(' ')}, ${rng.int(100_000)})'`,
      mode: 'lexical',
    },
  }),
  'raw: deep nesting': (rng, words) => {
    const d = 10 + rng.int(3000);
    return { method: 'search', params: { query: `'${rep('(', d)}${word(rng, words)}${rep(')', d)}'`, mode: 'lexical' } };
  },
  'raw: NOT and AND chains': (rng, words) => ({
    method: 'search',
    params: {
      query: `'${Array.from({ length: 2 + rng.int(300) }, () => word(rng, words)).join(rng.pick([' NOT ', ' AND ', ' OR ']))}'`,
      mode: 'lexical',
    },
  }),
  'raw: broken syntax': (rng) => ({ method: 'search', params: { query: `'${garbage(rng, 1 + rng.int(400))}'`, mode: 'lexical' } }),
  'phrase: long common-word phrase': (rng, words) => ({
    method: 'search',
    params: { query: `"${Array.from({ length: 5 + rng.int(500) }, () => rng.pick(['the', 'of', 'a', word(rng, words)])).join(' ')}"` },
  }),
  'phrase: many phrases': (rng, words) => ({
    method: 'search',
    params: { query: Array.from({ length: 2 + rng.int(200) }, () => `"${word(rng, words)} ${word(rng, words)}"`).join(' ') },
  }),
  'query: long pasted text': (rng, words) => ({
    method: 'search',
    params: { query: Array.from({ length: 50 + rng.int(3000) }, () => word(rng, words)).join(' '), explain: rng.next() < 0.5 },
  }),
  'query: unknown words (spelling)': (rng) => ({
    method: 'search',
    params: { query: Array.from({ length: 1 + rng.int(200) }, () => garbage(rng, 4 + rng.int(26)).replace(/[^a-z]/g, 'q')).join(' ') },
  }),
  'query: prefix of one letter': (rng, words) => ({
    method: 'search',
    params: {
      query: `${Array.from({ length: rng.int(4) }, () => word(rng, words)).join(' ')} ${String.fromCharCode(97 + rng.int(26))}`,
      prefix: true,
    },
  }),
  'query: symbols and operators': (rng) => ({
    method: 'search',
    params: { query: garbage(rng, 1 + rng.int(4000)), prefix: rng.next() < 0.5 },
  }),
  'query: CJK substring': (rng) => ({
    method: 'search',
    params: {
      query: Array.from({ length: 1 + rng.int(400) }, () => String.fromCharCode(0x4e00 + rng.int(2000))).join(rng.next() < 0.5 ? '' : ' '),
    },
  }),
  'query: huge top': (rng, words) => ({
    method: 'search',
    params: {
      query: rng.next() < 0.5 ? word(rng, words) : `${word(rng, words).slice(0, 1)}`,
      top: rng.next() < 0.5 ? 200 : 201 + rng.int(5000),
      explain: true,
      prefix: true,
    },
  }),
  'library: filter and offset': (rng) => ({
    method: 'documents.page',
    params: {
      limit: 500,
      offset: rng.int(10_000_000),
      filter: rng.next() < 0.5 ? rep('%_', 1 + rng.int(240)) : garbage(rng, 1 + rng.int(499)),
      sort: rng.pick(['path', 'title', 'type', 'updated', 'size', 'chunks']),
      down: rng.next() < 0.5,
    },
  }),
  'get: hostile targets': (rng) => ({
    method: 'get',
    params: {
      target: rng.pick([
        `${rep('../', 1 + rng.int(300))}etc/passwd`,
        `/${garbage(rng, 2000)}#L1-L99999999`,
        `${garbage(rng, 60)}#${rep('L1-', 2000)}`,
      ]),
      max_chars: 10_000_000,
    },
  }),
};

export const HOSTILE_KINDS = Object.keys(GENERATORS);

/** `n` hostile calls, every kind in turn. */
export function hostileCalls(n: number, words: string[], seed = 6661): HostileCall[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const kind = HOSTILE_KINDS[i % HOSTILE_KINDS.length]!;
    return { kind, ...GENERATORS[kind]!(rng, words) };
  });
}
