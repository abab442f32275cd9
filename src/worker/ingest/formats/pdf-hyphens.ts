// A hyphen at a line end is either the typesetter's (docu-/ment → "document") or part of the word
// ("well-/known"). Lines are joined with a mark in between (SOFT_JOIN); once the document's words are
// known, each mark becomes nothing — or stays a hyphen when the hyphenated spelling occurs elsewhere
// in the document and the joined one never does.
import { SOFT_JOIN } from './pdf-layout.js';

const WORD = /[\p{L}\p{N}]+(?:-[\p{L}\p{N}]+)*/gu;
const AROUND_JOIN = new RegExp(`[\\p{L}\\p{N}-]*${SOFT_JOIN}[\\p{L}\\p{N}-]*`, 'gu');
const JOINED = new RegExp(`([\\p{L}\\p{N}-]+)${SOFT_JOIN}([\\p{L}\\p{N}-]+)`, 'gu');

/** Words as written (a hyphenated word whole) seen in the document so far. */
export class Vocabulary {
  private words = new Set<string>();

  add(text: string): void {
    for (const m of text.replace(AROUND_JOIN, ' ').matchAll(WORD)) {
      this.words.add(m[0].toLowerCase());
    }
  }

  /** The text with every line-end join settled. */
  settle(text: string): string {
    if (!text.includes(SOFT_JOIN)) return text;
    return text.replace(JOINED, (_, a: string, b: string) => {
      const hyphenated = `${a}-${b}`.toLowerCase();
      const joined = `${a}${b}`.toLowerCase();
      return this.words.has(hyphenated) && !this.words.has(joined) ? `${a}-${b}` : `${a}${b}`;
    });
  }
}
