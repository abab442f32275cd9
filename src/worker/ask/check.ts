// After the answer: every [n] must name a source that was given (others are removed and reported),
// and sentences that cite nothing are flagged, so the user can see which claims stand on a source.
import { NOT_IN_DOCUMENTS } from './prompt.js';

export interface CheckedAnswer {
  answer: string;
  /** The valid source numbers the answer cites, in order of first use. */
  cited: number[];
  invalid: number[];
  uncited: string[];
  /** The model said the sources do not hold the answer. */
  notInDocuments: boolean;
}

/** `[1]`, `[1][2]`, `[1, 2]`, `[1-3]` are citations; other brackets are the answer's own text. */
const CITE = /\[(\d+(?:\s*[,–-]\s*\d+)*)\]/g;

function numbersIn(group: string): number[] {
  const out: number[] = [];
  for (const part of group.split(/\s*,\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    if (range) for (let i = Number(range[1]); i <= Number(range[2]) && i - Number(range[1]) < 50; i++) out.push(i);
    else out.push(Number(part));
  }
  return out;
}

export function checkAnswer(text: string, sourceCount: number): CheckedAnswer {
  const cited: number[] = [];
  const invalid: number[] = [];
  const valid = (n: number): boolean => Number.isInteger(n) && n >= 1 && n <= sourceCount;
  const answer = text
    .replace(CITE, (_m, group: string) => {
      const ns = numbersIn(group);
      for (const n of ns) {
        if (!valid(n)) {
          if (!invalid.includes(n)) invalid.push(n);
        } else if (!cited.includes(n)) cited.push(n);
      }
      const keep = ns.filter(valid);
      return keep.map((n) => `[${n}]`).join('');
    })
    .replace(/[ \t]+([.,;:!?])/g, '$1')
    .trim();
  const notInDocuments = answer.replace(/\s+/g, ' ').toLowerCase().includes(NOT_IN_DOCUMENTS.toLowerCase().slice(0, -1));
  const uncited = notInDocuments ? [] : sentences(answer).filter((s) => !/\[\d+\]/.test(s) && /[\p{L}\p{N}]{3}/u.test(s));
  return { answer, cited, invalid, uncited, notInDocuments };
}

/** Sentences of an answer; a citation right after a sentence's full stop belongs to that sentence. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?](?:\s*\[\d+\])*)\s+(?=[^\s[])|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !/^[-*#>]?\s*$/.test(s));
}
