// What one query may ask of the index. Anyone who may search writes the query, so its cost must not
// grow with what they type past what a person's search needs (docs/security.md, "Hostile input";
// `npm run bench -- hostile` measures it). Words past the limits are left out and the result says so;
// an expression between quotes past them is refused, since dropping part of it would change its logic.
import { KbError } from '../../shared/errors.js';

export const QUERY_LIMITS = {
  characters: 4000,
  /** A word longer than this is no word (PostgreSQL refuses a lexeme of 2 KB). */
  wordLetters: 255,
  /** Distinct words searched (Google searches 32): a pasted page costs what its first 32 words do. */
  words: 32,
  phrases: 8,
  /** The words of all its phrases together. */
  phraseWords: 32,
  /** Words of scripts written without spaces, each a substring search of the text; */
  substrings: 8,
  /** of them, shorter than a trigram — which no index can find, so each reads every passage. */
  shortSubstrings: 2,
  /** An expression between quotes: its words, */
  rawTerms: 32,
  /** its prefixes — each merges the lists of every word it begins before a row comes back, */
  rawPrefixes: 2,
  /** which begin with this many letters at least (`a*` is most of the index), */
  rawPrefixLetters: 3,
  /** and its parentheses. */
  rawDepth: 16,
} as const;

const WORD = /[\p{L}\p{N}\p{M}_]+/gu;
const OPERATORS = new Set(['AND', 'OR', 'NOT', 'NEAR']);

function refuse(why: string): never {
  throw new KbError('QUERY_INVALID', `the search expression between quotes ${why}: narrow it, or drop the quotes to search its words`);
}

/**
 * Refuses an expression (FTS5's, or PostgreSQL's tsquery) whose cost could explode: too many words,
 * too many or too short prefixes (`word*`, `word:*`), parentheses nested too deep.
 */
export function checkRawExpression(expr: string): void {
  let depth = 0;
  for (const c of expr) {
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth > QUERY_LIMITS.rawDepth) refuse(`nests parentheses more than ${QUERY_LIMITS.rawDepth} deep`);
  }
  const words = [...expr.matchAll(WORD)].filter((m) => !OPERATORS.has(m[0]));
  if (words.length > QUERY_LIMITS.rawTerms) refuse(`has ${words.length} words; at most ${QUERY_LIMITS.rawTerms} are searched`);
  // `!a & !b` excludes and finds nothing by itself: PostgreSQL reads every passage to answer it.
  if (words.length > 0 && words.every((m) => /!\s*\(*\s*$/.test(expr.slice(0, m.index))))
    refuse('only excludes words (!word): it needs a word to find');
  let prefixes = 0;
  for (const m of words) {
    const after = expr.slice(m.index + m[0].length);
    if (!/^"?\s*(?::[a-dA-D]*)?\*/.test(after)) continue;
    if (++prefixes > QUERY_LIMITS.rawPrefixes) refuse(`has more than ${QUERY_LIMITS.rawPrefixes} prefixes (word*)`);
    if ([...m[0]].length < QUERY_LIMITS.rawPrefixLetters)
      refuse(`has the prefix ${m[0]}*, which begins too many words; a prefix needs ${QUERY_LIMITS.rawPrefixLetters} letters`);
  }
}
