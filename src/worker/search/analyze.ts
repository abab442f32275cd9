// What a candidate chunk holds of the query, read in JS from its text: which query words occur
// (coverage, matched_terms), how close together (proximity), and where (snippet highlights). One
// tokenisation per candidate; FTS5's own highlight()/snippet() re-run the whole MATCH per row.
import { type Form, indexForm, WORD_TOKEN } from '../words.js';

export { indexForm, WORD_TOKEN };

export interface QueryWord {
  /** As typed (lowercased), for matched_terms. */
  text: string;
  /** Index form (stem); for a prefix word, the folded prefix as typed. */
  form: string;
  prefix: boolean;
  /** idf-like weight for coverage. */
  weight: number;
}

export interface Analysis {
  /** Indexes into the query words that occur anywhere (title, heading or body). */
  matched: Set<number>;
  /** idf-weighted share of the query words present, 0..1. */
  coverage: number;
  /** Proximity evidence: Σ over neighbouring query-word pairs found near each other of min(weight) / distance. */
  proximity: number;
  /** [start, end) character ranges in the body where query words occur. */
  spans: [number, number][];
  /** Stem → count over title, heading and body, for feedback; empty unless asked for. */
  tf: Map<string, number>;
  /** Stem → count per field (title, heading, body), for scoring feedback words as query words are scored. */
  fieldCounts: [Map<string, number>, Map<string, number>, Map<string, number>];
  /** Per query word: its counts in title, heading and body. */
  fieldTf: [number, number, number][];
  /** Tokens in title, heading and body. */
  fieldLength: [number, number, number];
  /** Tokens in title, heading and body together. */
  length: number;
  /** Per query word: its token positions in the body (for phrases found as written). */
  positions: number[][];
}

function matches(w: QueryWord, f: Form): boolean {
  return w.prefix ? f.folded.startsWith(w.form) : f.stem === w.form;
}

const WINDOW = 8;

const Y = 121;
const I = 105;

/** An ASCII letter or digit lowercased; -1 for anything else (folding it is Unicode's work). */
function asciiLower(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  return c < 128 ? c : -1;
}

/**
 * What the first two letters of a word allow it to be. Porter rewrites only a word's ending: a stem
 * begins with the word's first two letters, but for a y after the first turning into i ("eyed" is
 * "ei"). A token whose first two letters begin no query word's form is none of them, and its stem
 * is never looked up: most tokens of a candidate are such. One-letter forms let every token that
 * begins with their letter through; a token that does not begin with two ASCII characters is
 * always looked up.
 */
class Leads {
  private readonly one = new Set<number>();
  private readonly two = new Set<number>();
  /** An empty form (nothing typed yet) is the beginning of every token. */
  private readonly every: boolean;

  constructor(words: QueryWord[]) {
    this.every = words.some((w) => w.form.length === 0);
    for (const w of words) {
      const c1 = asciiLower(w.form.charCodeAt(0));
      if (w.form.length === 1) this.one.add(c1);
      else this.two.add(c1 * 128 + Leads.second(w.form));
    }
  }

  private static second(word: string): number {
    const c2 = asciiLower(word.charCodeAt(1));
    return c2 === Y ? I : c2;
  }

  /** Whether the token may be a query word (its stem must be looked up). */
  mayBe(token: string): boolean {
    if (this.every) return true;
    const c1 = asciiLower(token.charCodeAt(0));
    if (c1 < 0 || this.one.has(c1)) return true;
    if (token.length < 2) return false;
    const c2 = Leads.second(token);
    return c2 < 0 || this.two.has(c1 * 128 + c2);
  }
}

/** `allCounts`: also count every stem (feedback needs them; plain scoring only needs the query's words). */
export function analyze(words: QueryWord[], title: string, heading: string, body: string, allCounts = true): Analysis {
  const matched = new Set<number>();
  const positions: number[][] = words.map(() => []);
  const spans: [number, number][] = [];
  const tf = new Map<string, number>();
  const fieldCounts: Analysis['fieldCounts'] = [new Map(), new Map(), new Map()];
  const fieldTf = words.map(() => [0, 0, 0] as [number, number, number]);
  const fieldLength: [number, number, number] = [0, 0, 0];
  let length = 0;
  let pos = 0;
  const leads = allCounts ? null : new Leads(words);
  for (const m of body.matchAll(WORD_TOKEN)) {
    if (leads && !leads.mayBe(m[0])) {
      pos++;
      continue;
    }
    const form = indexForm(m[0]);
    if (allCounts) {
      tf.set(form.stem, (tf.get(form.stem) ?? 0) + 1);
      fieldCounts[2].set(form.stem, (fieldCounts[2].get(form.stem) ?? 0) + 1);
    }
    // Every query word the token is (a word of the query and of a phrase in it: both), one span.
    let hit = false;
    for (let i = 0; i < words.length; i++) {
      if (matches(words[i]!, form)) {
        matched.add(i);
        fieldTf[i]![2]++;
        positions[i]!.push(pos);
        hit = true;
      }
    }
    if (hit) spans.push([m.index, m.index + m[0].length]);
    pos++;
  }
  length += pos;
  fieldLength[2] = pos;
  for (const [fi, field] of [
    [0, title],
    [1, heading],
  ] as const) {
    if (!field) continue;
    for (const m of field.matchAll(WORD_TOKEN)) {
      length++;
      fieldLength[fi]++;
      if (leads && !leads.mayBe(m[0])) continue;
      const form = indexForm(m[0]);
      if (allCounts) {
        tf.set(form.stem, (tf.get(form.stem) ?? 0) + 1);
        fieldCounts[fi].set(form.stem, (fieldCounts[fi].get(form.stem) ?? 0) + 1);
      }
      words.forEach((q, i) => {
        if (matches(q, form)) {
          matched.add(i);
          fieldTf[i]![fi]++;
        }
      });
    }
  }
  const total = words.reduce((s, w) => s + w.weight, 0);
  let covered = 0;
  for (const i of matched) covered += words[i]!.weight;

  // Neighbouring query words (in query order) that also sit near each other in the text.
  let proximity = 0;
  for (let i = 0; i + 1 < words.length; i++) {
    const a = positions[i]!;
    const b = positions[i + 1]!;
    if (a.length === 0 || b.length === 0) continue;
    let best = Infinity;
    let x = 0;
    let y = 0;
    while (x < a.length && y < b.length) {
      // One token can be two query words (a word and the same word in a phrase): that is not two
      // words near each other.
      const d = Math.abs(a[x]! - b[y]!) || Infinity;
      if (d < best) best = d;
      if (a[x]! < b[y]!) x++;
      else y++;
    }
    if (best <= WINDOW) proximity += Math.min(words[i]!.weight, words[i + 1]!.weight) / best;
  }
  return { matched, coverage: total > 0 ? covered / total : 0, proximity, spans, tf, fieldCounts, fieldTf, fieldLength, length, positions };
}
