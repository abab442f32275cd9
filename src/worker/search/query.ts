// User text → what the lexical index is asked. Nothing the user types may reach FTS5 unescaped,
// except a query wrapped in single quotes, which is a raw FTS5 expression by design.
import { eng } from 'stopword';
import { stem } from '../words.js';
import { checkRawExpression, QUERY_LIMITS } from './query-limits.js';

export { stem };

const EXTRA_STOPWORDS = [
  'does',
  'doing',
  'its',
  'itself',
  'shall',
  'upon',
  'whether',
  'will',
  'when',
  'why',
  'us',
  'yet',
  'thus',
  'etc',
  'yes',
  'not',
  'no',
  'nor',
  'so',
  'just',
];
const STOPWORDS = new Set([...eng, ...EXTRA_STOPWORDS]);

/** Scripts written without spaces between words, or with particles glued to words: matched by substring. */
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}\p{M}]+(?:['’][\p{L}]+)?/gu;

export interface Term {
  /** The word as the user typed it, lowercased. */
  text: string;
  /** Porter stem: what the index holds for it. */
  stem: string;
  prefix: boolean;
  /**
   * How many times the query uses the word (as standard BM25 weighs it): a long question, or a title
   * pasted with its abstract, repeats its topic words, and the repeats say what matters most.
   */
  count: number;
  /** Another spelling of typed words (see lexical.ts variants): found and scored, not required. */
  alternative?: boolean;
  /** A prefix that finds candidates beside complete words (the last word typed, lexical.ts), not only re-ranks them. */
  drives?: boolean;
}

export interface ParsedQuery {
  kind: 'empty' | 'raw' | 'terms';
  raw?: string;
  /** Content words (stopwords dropped unless nothing else is left). */
  terms: Term[];
  phrases: string[][];
  /** Words in scripts that need substring matching. */
  cjk: string[];
  /** Every word typed, for matched_terms when the query is raw. */
  words: string[];
  /** What QUERY_LIMITS left out, in words for the person; absent when nothing was. */
  cut?: string;
}

export function isStopword(w: string): boolean {
  return STOPWORDS.has(w);
}

/**
 * A phrase's words as the index holds them: FTS5's unicode61 and analyze.ts cut at every character
 * that is not a letter, digit or mark, so "we’re" is "we re" and "O'Reilly" is "o reilly" there. Cut
 * the same way, a quoted phrase with an apostrophe or a hyphen matches the text it was copied from.
 */
function phraseWords(s: string): string[] {
  return [
    ...s
      .toLowerCase()
      .normalize('NFKC')
      .matchAll(/[\p{L}\p{N}\p{M}]+/gu),
  ].flatMap((m) => fitWord(m[0]));
}

function words(s: string): string[] {
  return [...s.toLowerCase().normalize('NFKC').matchAll(WORD)].map((m) => m[0].replace(/['’]s$/, '').replace(/['’]/g, '')).flatMap(fitWord);
}

/** A run of text without spaces is cut to a word's length; anything else that long is no word. */
function fitWord(w: string): string[] {
  const letters = [...w];
  if (letters.length <= QUERY_LIMITS.wordLetters) return [w];
  return CJK.test(w) ? [letters.slice(0, QUERY_LIMITS.wordLetters).join('')] : [];
}

/** Double-quoted FTS5 string: the only escape is doubling the quote. */
export function ftsString(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** Shortest last word matched as a prefix while typing (CJK goes through the trigram index instead). */
export const MIN_PREFIX = 3;

/**
 * What to tell the person about how their query was read: a single quote opens a raw FTS5 expression,
 * and one left open (`'NEAR(git`) is searched as plain words until it is closed.
 */
export function queryNotice(input: string, cut: string | undefined): { notice: string } | Record<string, never> {
  const q = input.trim();
  if (q.length >= 2 && q.startsWith("'") && !q.endsWith("'")) {
    return {
      notice: "This FTS5 expression is not finished: close it with ' to run it as written. Until then its words are searched as words.",
    };
  }
  return cut ? { notice: `The query is too long to search whole: ${cut} were left out.` } : {};
}

export function parseQuery(input: string, opts: { prefix: boolean }): ParsedQuery {
  const q = input.trim().slice(0, QUERY_LIMITS.characters);
  if (q.length >= 2 && q.startsWith("'") && q.endsWith("'")) {
    const raw = q.slice(1, -1).trim();
    if (raw) {
      checkRawExpression(raw);
      return { kind: 'raw', raw, terms: [], phrases: [], cjk: [], words: words(raw) };
    }
  }
  const phrases: string[][] = [];
  const cut: string[] = input.trim().length > QUERY_LIMITS.characters ? [`the text past ${QUERY_LIMITS.characters} characters`] : [];
  let rest = '';
  // Balanced "…" are phrases; an unbalanced quote is just punctuation.
  const re = /"([^"]*)"/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(q))) {
    rest += q.slice(last, m.index) + ' ';
    const w = phraseWords(m[1]!);
    // The phrases' words together, not each phrase's: PostgreSQL checks every word's positions.
    const room = QUERY_LIMITS.phraseWords - phrases.reduce((n, p) => n + p.length, 0);
    if (w.length > 1 && (phrases.length >= QUERY_LIMITS.phrases || room < 2)) cut.push(`phrases past the first ${phrases.length}`);
    else if (w.length > room) {
      cut.push(`the phrases' words past the first ${QUERY_LIMITS.phraseWords}`);
      phrases.push(w.slice(0, room));
    } else if (w.length > 1) phrases.push(w);
    else if (w.length === 1) rest += ` ${w[0]} `;
    last = re.lastIndex;
  }
  rest += q.slice(last);
  const all = words(rest);
  const endsInWord = opts.prefix && /[\p{L}\p{N}]$/u.test(input);
  const cjk: string[] = [];
  const latin: string[] = [];
  for (const w of all) (CJK.test(w) ? cjk : latin).push(w);
  for (const p of phrases) for (const w of p) if (CJK.test(w)) cjk.push(w);
  const content = latin.filter((w) => !STOPWORDS.has(w));
  const chosen = content.length > 0 || phrases.length > 0 || cjk.length > 0 ? content : latin;
  const byStem = new Map<string, Term>();
  const terms: Term[] = [];
  chosen.forEach((w) => {
    const s = stem(w);
    const seen = byStem.get(s);
    if (seen) {
      seen.count++;
      return;
    }
    if (terms.length >= QUERY_LIMITS.words) {
      cut.push(`words past the first ${QUERY_LIMITS.words}`);
      return;
    }
    const t: Term = { text: w, stem: s, prefix: false, count: 1 };
    byStem.set(s, t);
    terms.push(t);
  });
  // While typing, the last word is incomplete: match it as a prefix (stopword or not). One or two
  // letters would expand to thousands of index terms (100+ ms on a big index) and say little about
  // what is being typed, so they are matched as they are until a third letter arrives.
  const lastWord = latin[latin.length - 1];
  if (endsInWord && lastWord && [...lastWord].length >= MIN_PREFIX && all[all.length - 1] === lastWord) {
    const existing = terms.find((t) => t.text === lastWord);
    if (existing) existing.prefix = true;
    else if (terms.length < QUERY_LIMITS.words) terms.push({ text: lastWord, stem: lastWord, prefix: true, count: 1 });
  }
  let short = 0;
  const substrings = [...new Set(cjk)].filter((w) => [...w].length >= 3 || ++short <= QUERY_LIMITS.shortSubstrings);
  if (short > QUERY_LIMITS.shortSubstrings)
    cut.push(`words of one or two letters past the first ${QUERY_LIMITS.shortSubstrings} written without spaces`);
  if (substrings.length > QUERY_LIMITS.substrings) cut.push(`words past the first ${QUERY_LIMITS.substrings} written without spaces`);
  const kind = terms.length + phrases.length + cjk.length === 0 ? 'empty' : 'terms';
  return {
    kind,
    terms,
    phrases: phrases.filter((p) => !p.some((w) => CJK.test(w))),
    cjk: substrings.slice(0, QUERY_LIMITS.substrings),
    words: all,
    ...(cut.length > 0 ? { cut: [...new Set(cut)].join(', ') } : {}),
  };
}

/** OR of every term and phrase: bm25 ranks chunks that match more (and rarer) terms higher. */
export function toFtsExpression(terms: { text: string; prefix: boolean }[], phrases: string[][], join: 'OR' | 'AND' = 'OR'): string {
  const parts: string[] = [];
  for (const t of terms) parts.push(t.prefix ? `${ftsString(t.text)}*` : ftsString(t.text));
  for (const p of phrases) parts.push(ftsString(p.join(' ')));
  return parts.join(` ${join} `);
}
