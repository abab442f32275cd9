// Typos: a query word the index does not hold is corrected against the index's own vocabulary, as a
// search box does ("deploymnet rollbak" → "deployment rollback"). Only words that match nothing are
// touched, so a query whose words all occur is searched as typed. The candidates are the words one
// edit away (a letter dropped, doubled, swapped with its neighbour or mistyped — most typing slips),
// kept when the index holds them, and the one many passages use wins: the index says which word was
// meant, not a dictionary of some other language or field.
import { isStopword, type ParsedQuery, stem } from './query.js';

/** What the index is asked: does a word occur (as FTS5 stems it), and in how many passages. */
export interface Vocabulary {
  occurs(word: string): Promise<boolean>;
  /** Which of these words some chunk holds. */
  occurring(words: string[]): Promise<Set<string>>;
  /** Some index term begins with these letters (a word still being typed). */
  begins(prefix: string): Promise<boolean>;
  /** The letters are written somewhere in the text as they stand (not only their stem). */
  written(word: string): Promise<boolean>;
  docFreq(stems: string[]): Promise<Map<string, number>>;
}

/** Words shorter than this are left alone: one edit away from a short word is too many other words. */
const MIN_LENGTH = 4;
/**
 * Up to this length a correction keeps the first letter: "mend" is no slip for "end" (a first letter
 * is the rarest slip, and a short word has many neighbours that begin otherwise). npm run bench --
 * typos scored the same with and without this rule.
 */
const SHORT_WORD = 5;
/** Nor longer than this (no word is; ~50 × 26 candidates each is the cost bound of a hostile query). */
const MAX_LENGTH = 30;
/** The words corrected in one query at most: a pasted paragraph of unknown words costs no more. */
const MAX_FIXES = 6;
/**
 * Nor more candidates looked up in all (each a seek in the index): three eight-letter words' worth, so a
 * query of long unknown words costs what a person's typos do.
 */
const CANDIDATE_BUDGET = 1500;
/** How many words one edit away from a word of `n` letters there are at most (oneEditAway). */
const candidatesOf = (n: number): number => 2 * n + 1 + 26 * (2 * n + 1);
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

interface Candidate {
  word: string;
  /** A neighbour swap (the commonest slip) or a change at the first letter (the rarest). */
  swap: boolean;
  firstKept: boolean;
}

/** Every word one edit away: deletions, neighbour swaps, replacements, insertions (Damerau distance 1). */
export function oneEditAway(w: string): Candidate[] {
  const out = new Map<string, Candidate>();
  const add = (word: string, swap: boolean): void => {
    if (word !== w && word.length > 0 && !out.has(word)) out.set(word, { word, swap, firstKept: word[0] === w[0] });
  };
  for (let i = 0; i < w.length; i++) add(w.slice(0, i) + w.slice(i + 1), false);
  for (let i = 0; i + 1 < w.length; i++) add(w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2), true);
  for (let i = 0; i < w.length; i++) for (const c of LETTERS) add(w.slice(0, i) + c + w.slice(i + 1), false);
  for (let i = 0; i <= w.length; i++) for (const c of LETTERS) add(w.slice(0, i) + c + w.slice(i), false);
  return [...out.values()];
}

/** The word the index most likely meant by `w`, or null when none is one edit away. */
export async function bestCorrection(w: string, vocab: Vocabulary): Promise<string | null> {
  const byStem = new Map<string, Candidate>();
  for (const c of oneEditAway(w)) {
    if (isStopword(c.word) || (w.length <= SHORT_WORD && !c.firstKept)) continue;
    const s = stem(c.word);
    const seen = byStem.get(s);
    // One surface form per stem: the swap, else the one keeping the first letter, else the first found.
    if (!seen || (c.swap && !seen.swap) || (c.firstKept && !seen.firstKept)) byStem.set(s, c);
  }
  // Held as a stem, and written as such in the text: "validely" shares the stem of "valid" but nobody
  // wrote it, so it is no correction of "validly".
  const occurring = await vocab.occurring([...byStem.values()].map((c) => c.word));
  const held: [string, Candidate][] = [];
  for (const [s, c] of byStem) if (occurring.has(c.word) && (await vocab.written(c.word))) held.push([s, c]);
  if (held.length === 0) return null;
  const df = await vocab.docFreq(held.map(([s]) => s));
  const score = ([s, c]: [string, Candidate]): number => Math.log1p(df.get(s) ?? 0) + (c.firstKept ? 2 : 0) + (c.swap ? 1 : 0);
  held.sort((a, b) => score(b) - score(a) || a[1].word.localeCompare(b[1].word));
  return held[0]![1].word;
}

/**
 * The corrections a parsed query needs: [typed, meant] for each of its words the index does not
 * hold. Quoted phrases are exact by intent and never corrected; a word still being typed (the last,
 * while typing) only when no index word begins with it.
 */
export async function corrections(q: ParsedQuery, vocab: Vocabulary): Promise<[string, string][]> {
  if (q.kind !== 'terms') return [];
  const out: [string, string][] = [];
  let tried = 0;
  let budget = CANDIDATE_BUDGET;
  // The whole words' look-ups at once (the answers are cached for occurs).
  await vocab.occurring(q.terms.filter((t) => !t.prefix && !t.alternative).map((t) => t.text));
  for (const t of q.terms) {
    if (t.alternative || !/^[a-z]+$/.test(t.text) || t.text.length < MIN_LENGTH || t.text.length > MAX_LENGTH) continue;
    if (await (t.prefix ? vocab.begins(t.text) : vocab.occurs(t.text))) continue;
    budget -= candidatesOf(t.text.length);
    if (++tried > MAX_FIXES || budget < 0) break;
    const meant = await bestCorrection(t.text, vocab);
    if (meant) out.push([t.text, meant]);
  }
  return out;
}

/** The query as typed with each corrected word replaced, its capitals kept. */
export function correctedQuery(query: string, fixes: [string, string][]): string {
  let out = query;
  for (const [from, to] of fixes) {
    out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${from}(?![\\p{L}\\p{N}])`, 'giu'), (m) =>
      m === m.toUpperCase() ? to.toUpperCase() : m[0] === m[0]!.toUpperCase() ? to[0]!.toUpperCase() + to.slice(1) : to,
    );
  }
  return out;
}
