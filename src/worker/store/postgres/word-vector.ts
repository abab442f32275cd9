// A chunk's words as PostgreSQL keeps them: a tsvector written by kb (words.ts's forms, so both stores
// hold the same words and the ranking reads candidates as the index counts them), title words
// weighted A, heading words B, body words D, each field's positions apart so a phrase never spans two.
import { indexForm, WORD_TOKEN } from '../../words.js';

/** tsvector's limits: a position is at most 16383, a lexeme under 2 KB with at most 256 positions. */
const MAX_POS = 16383;
const MAX_LEXEME_BYTES = 2046;
const MAX_POSITIONS = 256;
/** Positions skipped between fields. */
const FIELD_GAP = 100;

export interface WordVector {
  /** The tsvector's text form. */
  literal: string;
  /** Tokens in the title, heading and body (BM25F's field lengths). */
  lengths: [number, number, number];
}

const quote = (lexeme: string): string => `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

export function wordVector(title: string, heading: string, text: string): WordVector {
  const at = new Map<string, string[]>();
  const lengths: [number, number, number] = [0, 0, 0];
  let pos = 0;
  [title, heading, text].forEach((field, f) => {
    const weight = f === 0 ? 'A' : f === 1 ? 'B' : '';
    for (const m of field.matchAll(WORD_TOKEN)) {
      lengths[f]!++;
      pos = Math.min(MAX_POS, pos + 1);
      const { stem } = indexForm(m[0]);
      if (Buffer.byteLength(stem) > MAX_LEXEME_BYTES) continue;
      let list = at.get(stem);
      if (!list) at.set(stem, (list = []));
      if (list.length < MAX_POSITIONS) list.push(`${pos}${weight}`);
    }
    pos = Math.min(MAX_POS, pos + FIELD_GAP);
  });
  const parts: string[] = [];
  for (const [lexeme, positions] of at) parts.push(`${quote(lexeme)}:${positions.join(',')}`);
  return { literal: parts.join(' '), lengths };
}
