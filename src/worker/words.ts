// What the index counts as a word and the form it keeps of it: unicode61's cut (letters, digits and
// marks), lowercased, diacritics removed, Porter-stemmed. SQLite's FTS5 tokenizer does the same inside
// the database; the PostgreSQL store writes these forms itself (store/postgres/word-vector.ts), and
// the ranking reads candidates with them (search/analyze.ts) — one notion of a word for all three.
import { stemmer } from 'stemmer';

/** Porter stem of a folded word; words with anything but a–z are kept as they are. */
export function stem(w: string): string {
  return /^[a-z]+$/.test(w) ? stemmer(w) : w;
}

/** A word as the index's tokenizer (unicode61) cuts it. */
export const WORD_TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
const formCache = new Map<string, Form>();

export interface Form {
  /** Lowercased, diacritics removed (as remove_diacritics 2 does). */
  folded: string;
  /** Porter stem of folded: what the index holds. */
  stem: string;
}

/** The index's view of a word, cached: stemming every token of every candidate is the hot path. */
export function indexForm(word: string): Form {
  let f = formCache.get(word);
  if (f === undefined) {
    const folded = word.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
    f = { folded, stem: stem(folded) };
    if (formCache.size > 200_000) formCache.clear();
    formCache.set(word, f);
  }
  return f;
}

/** The letters as a written word (`whole`), or as the start of one, case-insensitively. */
export function writtenWord(letters: string, whole: boolean): RegExp {
  const l = letters.replace(/[^\p{L}\p{N}]/gu, '');
  return new RegExp(`(?<![\\p{L}\\p{N}])${l}${whole ? '(?![\\p{L}\\p{N}])' : ''}`, 'iu');
}
