// SQL functions the index's triggers and statements call, registered on every connection openDb
// makes: which chunks the trigram index holds (those in scripts written without spaces between
// words), which words of a chunk substring search can look inside (identifiers and long compounds —
// everything else a search finds by its words: FTS5 cuts snake_case, kebab-case and dotted names into
// them already), and a chunk's text packed and unpacked.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
// The connection's own type, not db.ts's Db: db.ts registers these on every connection it opens.
import type Database from 'better-sqlite3';

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

/**
 * A chunk's text as stored since migration 12: raw deflate, about 0.55 of the text, behind a byte
 * naming the format (1: deflate, no dictionary) so a better one can come without rewriting these.
 * Chunks in scripts without spaces stay plain: the trigram index reads its content from the column.
 */
const DEFLATE = 1;

export function pack(text: string): Buffer {
  return Buffer.concat([Buffer.of(DEFLATE), deflateRawSync(Buffer.from(text, 'utf8'))]);
}

export function unpack(packed: Uint8Array): string {
  if (packed[0] !== DEFLATE) throw new Error(`a chunk packed in an unknown format (${packed[0]}): a newer kb wrote it`);
  return inflateRawSync(packed.subarray(1)).toString('utf8');
}

/** Whether a chunk of this text is stored packed (everything but the scripts the trigram index reads). */
export function packable(text: string): boolean {
  return !SPACELESS.test(text);
}

export function registerIndexFunctions(db: Database.Database): void {
  db.function('kb_spaceless', { deterministic: true }, (text: unknown) => (typeof text === 'string' && SPACELESS.test(text) ? 1 : 0));
  db.function('kb_compound_words', { deterministic: true }, (text: unknown) =>
    JSON.stringify(typeof text === 'string' ? compoundWords(text) : []),
  );
  db.function('kb_pack', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? pack(text) : null));
  // A chunk's text, packed or plain (every statement reads it through this: kb_unpack(c.packed, c.text)).
  // The last one is kept: an insert's trigger reads the new chunk's text twice (its words, its compounds).
  let last: { packed: Buffer; text: string } | null = null;
  db.function('kb_unpack', { deterministic: true }, (packed: unknown, text: unknown) => {
    if (!(packed instanceof Uint8Array)) return typeof text === 'string' ? text : '';
    if (last?.packed.equals(packed)) return last.text;
    last = { packed: Buffer.from(packed), text: unpack(packed) };
    return last.text;
  });
}
