// What a search by substring looks inside (the letters of an identifier, text without spaces): the
// words of a chunk that have an inside — camelCase, letters with digits, long compounds — and, for a
// chunk in a script written without spaces between words, its whole text. Everything else a search
// finds by its words. SQLite's index keeps them in words_tri and chunks_tri (index-functions.ts),
// PostgreSQL's in chunk_insides (postgres/tables/chunks.ts): narrow enough to read whole, where the
// chunks' own text would be every passage read (300 ms at 100,000 on PostgreSQL).
/** Scripts written without spaces between words, or with particles glued to words: matched by substring. */
export const SPACELESS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
/** A word shorter than this has no inside worth searching; one longer is no word. */
const MIN_LETTERS = 6;
const MAX_LETTERS = 64;
/** A word this long is a compound (Donaudampfschiff, antidisestablishment…) even in lower case. */
const COMPOUND_LETTERS = 15;
const CAMEL = /\p{Ll}\p{Lu}/u;
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;
/** Hashes and ids (a3f9c2e1…): letters and digits, but nothing anyone searches inside. */
const HEX = /^[0-9a-f]+$/i;

/** The words of a text whose inside a search may be after: camelCase, letters with digits, long words; folded as the index folds them. */
export function compoundWords(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(TOKEN)) {
    const w = m[0];
    if (w.length < MIN_LETTERS || w.length > MAX_LETTERS || SPACELESS.test(w)) continue;
    const mixed = LETTER.test(w) && DIGIT.test(w) && !HEX.test(w);
    if (CAMEL.test(w) || mixed || w.length >= COMPOUND_LETTERS) out.add(fold(w));
  }
  return [...out];
}

/** Lowercased, diacritics removed (as the tokenizer's remove_diacritics 2). */
export function fold(word: string): string {
  return word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}

/** What chunk_insides holds for a chunk: its text when in a spaceless script, else its compound words ('' for none). */
export function insideOf(text: string): string {
  return SPACELESS.test(text) ? text : compoundWords(text).join(' ');
}
