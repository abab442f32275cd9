// Tops of the heavy units. FTS5 scores every chunk a query matches before it can name the best, so a
// word in a tenth of a million chunks, or a prefix typed three letters in ("con"*, hundreds of
// terms), costs hundreds of milliseconds. Yet one word's ranking of the chunks is its BM25F
// saturation alone (bm25.ts): the idf scales every chunk alike. So for each heavy unit — a stem
// ('w:') or a typed prefix ('p:') in at least search.tops_min_df chunks — the TOPS_K chunks it ranks first are
// kept ahead of the search (the store's TopsPort), and a one-unit search reads them instead of the word index.
//
// Entries are [rowid, saturation] pairs, best first. Chunks only ever come and go (a changed file
// gets new rows), so an update adds the chunks written since it last read and drops the deleted ones: what
// is left is still the true head of the ranking. Field averages drift as the index grows; the update
// starts over when they moved (or the weights changed) enough to reorder it.
import { indexForm, WORD_TOKEN } from './analyze.js';
import { type FieldModel, type Fields, saturation } from './bm25.js';
import { MIN_PREFIX } from './query.js';

/**
 * Tops are kept on indexes of at least this many times search.tops_min_df chunks (20,000 by default):
 * below, FTS5 answers every query in a few ms.
 */
export const TOPS_INDEX_FACTOR = 5;
/** Entries per unit: deeper than a page of hits and its re-ranking, small enough to read in one row. */
export const TOPS_K = 128;

/**
 * Entries per unit on a store whose word index scores chunks `scoringCost` times as slowly as FTS5:
 * twice as deep, so a long question's drivers (each asked for 200 chunks: ranking.ts, FEEDBACK_DEPTH
 * × DEEPEST) come from their tops rather than from scoring every chunk holding them.
 */
export function topsDepth(scoringCost: number): number {
  return scoringCost > 1 ? 2 * TOPS_K : TOPS_K;
}

export const wordUnit = (stem: string): string => `w:${stem}`;
export const prefixUnit = (letters: string): string => `p:${letters}`;

/**
 * What the saturations were computed with: field weights and averages, k1, b; and whether a prefix
 * unit holds the chunks with a stem beginning so (PostgreSQL's match: WordSource.prefixesByStem)
 * rather than a word as written.
 */
export type TopsModel = Omit<FieldModel, 'n'> & { stemPrefixes?: boolean };

/**
 * How many chunks make a unit heavy. A prefix at search.tops_min_df: it costs FTS5 the doclists of
 * every term it expands to. A word at a quarter of that: FTS5 scores each chunk a word is in before
 * naming the best, about a microsecond each, so a word in 1,000 chunks is already a millisecond of a
 * search meant to take five.
 */
export interface Heavy {
  word: number;
  prefix: number;
}

export function heavyAt(minDf: number): Heavy {
  return { word: Math.max(1, Math.round(minDf / 4)), prefix: minDf };
}

export interface TopsState {
  /** The last chunk rowid the tops have seen. */
  upto: number;
  /** Chunks in the index when the tops were last built from scratch. */
  chunks: number;
  model: TopsModel;
  /** The thresholds the units were chosen with (absent before words had their own). */
  heavy?: Heavy;
  /** Entries kept per unit (absent: TOPS_K). */
  depth?: number;
  /**
   * Counts the updates: a reader's cached tops are stale when it moves. (On PostgreSQL an update can
   * leave `upto` as it was: the chunk it added committed after one with a higher rowid.)
   */
  version?: number;
}

export interface Top {
  rowids: number[];
  scores: number[];
  /** Chunks holding the unit, as far as the updates saw. */
  matches: number;
}

/** Every chunk holding the unit is among the entries: fewer hits than asked for is the whole answer. */
export function complete(top: Top): boolean {
  return top.rowids.length === top.matches;
}

export function encodeTop(top: Top): Buffer {
  const a = new Float64Array(top.rowids.length * 2);
  top.rowids.forEach((r, i) => {
    a[2 * i] = r;
    a[2 * i + 1] = top.scores[i]!;
  });
  return Buffer.from(a.buffer);
}

export function decodeTop(entries: Buffer, matches: number): Top {
  const a = new Float64Array(entries.buffer.slice(entries.byteOffset, entries.byteOffset + entries.byteLength));
  const rowids: number[] = [];
  const scores: number[] = [];
  for (let i = 0; i + 1 < a.length; i += 2) {
    rowids.push(a[i]!);
    scores.push(a[i + 1]!);
  }
  return { rowids, scores, matches };
}

/** The filter tokens of the meta column (kbtype1, kblang…0, kbtag7): not words anyone searches for. */
const META_TOKEN = /^kb(type|lang|tag)[0-9a-f]*\d$/;

/**
 * The heavy units of an index, from its vocabulary (stems and how many chunks hold each) in term
 * order (by UTF-8 bytes, as SQLite's and PostgreSQL's "C" collation sort: any order in which the terms sharing a prefix come together). A
 * prefix's count is the sum of its terms', so only the prefixes of the current term are kept: a map
 * of every prefix of every term held 560 MB at a million passages, and took 7.5 s rather than 3.
 */
export async function heavyUnits(vocabulary: AsyncIterable<{ term: string; doc: number }>, heavy: Heavy): Promise<Set<string>> {
  const units = new Set<string>();
  /** The current term's prefixes, shortest first (MIN_PREFIX letters, then one more each), with their counts so far. */
  const open: { prefix: string; chunks: number }[] = [];
  const close = (keep: number): void => {
    while (open.length > keep) {
      const p = open.pop()!;
      if (p.chunks >= heavy.prefix) units.add(prefixUnit(p.prefix));
    }
  };
  for await (const { term, doc } of vocabulary) {
    if (META_TOKEN.test(term)) continue;
    if (doc >= heavy.word) units.add(wordUnit(term));
    // A prefix costs FTS5 the chunks of every term it expands to.
    let shared = 0;
    while (shared < open.length && term.startsWith(open[shared]!.prefix)) shared++;
    close(shared);
    for (let k = MIN_PREFIX + open.length; k <= term.length; k++) open.push({ prefix: term.slice(0, k), chunks: 0 });
    for (const p of open) p.chunks += doc;
  }
  close(0);
  return units;
}

/**
 * Whether tops built with `built` still rank as `now` would, close enough to keep updating them, over
 * the units `heavy` names, `depth` entries deep.
 */
export function stillValid(state: TopsState, now: TopsModel, chunks: number, heavy: Heavy, depth = TOPS_K): boolean {
  if (state.heavy?.word !== heavy.word || state.heavy.prefix !== heavy.prefix) return false;
  if ((state.depth ?? TOPS_K) !== depth) return false;
  const m = state.model;
  if (m.k1 !== now.k1 || m.b !== now.b || m.weights.some((w, i) => w !== now.weights[i])) return false;
  if ((m.stemPrefixes ?? false) !== (now.stemPrefixes ?? false)) return false;
  if (chunks > state.chunks * 1.25 || chunks < state.chunks * 0.8) return false;
  return m.avgLength.every((a, i) => Math.abs(a - now.avgLength[i]!) <= 0.1 * Math.max(1, now.avgLength[i]!));
}

/** The `depth` best (rowid, score) of one unit: the worst at the root, to be pushed out first. */
class Heap {
  readonly rowids: number[] = [];
  readonly scores: number[] = [];
  matches = 0;

  constructor(private readonly depth: number) {}

  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    return a < b || (a === b && this.rowids[i]! > this.rowids[j]!);
  }

  private swap(i: number, j: number): void {
    [this.rowids[i], this.rowids[j]] = [this.rowids[j]!, this.rowids[i]!];
    [this.scores[i], this.scores[j]] = [this.scores[j]!, this.scores[i]!];
  }

  push(rowid: number, score: number): void {
    if (this.rowids.length < this.depth) {
      this.rowids.push(rowid);
      this.scores.push(score);
      for (let i = this.rowids.length - 1; i > 0;) {
        const up = (i - 1) >> 1;
        if (!this.worse(i, up)) break;
        this.swap(i, up);
        i = up;
      }
      return;
    }
    const s0 = this.scores[0]!;
    if (score < s0 || (score === s0 && rowid > this.rowids[0]!)) return;
    this.rowids[0] = rowid;
    this.scores[0] = score;
    for (let i = 0; ;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.rowids.length && this.worse(l, m)) m = l;
      if (r < this.rowids.length && this.worse(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }

  /** Best first: score down, rowid up (the search's own tie-break). */
  top(): Top {
    const order = this.rowids.map((_, i) => i).sort((a, b) => this.scores[b]! - this.scores[a]! || this.rowids[a]! - this.rowids[b]!);
    return { rowids: order.map((i) => this.rowids[i]!), scores: order.map((i) => this.scores[i]!), matches: this.matches };
  }
}

/**
 * A chunk's saturation for each heavy unit it holds. Tokens are read as analyze() reads them, so a
 * search that re-scores these chunks gets the same saturations back.
 */
export class ChunkScorer {
  /** A token's folded form → the units it counts for. */
  private readonly unitsOfForm = new Map<string, string[]>();

  constructor(
    private readonly units: ReadonlySet<string>,
    private readonly model: TopsModel,
  ) {}

  private unitsOf(word: string): string[] {
    const form = indexForm(word);
    let us = this.unitsOfForm.get(form.folded);
    if (!us) {
      us = [];
      const w = wordUnit(form.stem);
      if (this.units.has(w)) us.push(w);
      const prefixed = this.model.stemPrefixes ? form.stem : form.folded;
      for (let k = MIN_PREFIX; k <= prefixed.length; k++) {
        const p = prefixUnit(prefixed.slice(0, k));
        if (this.units.has(p)) us.push(p);
      }
      if (this.unitsOfForm.size > 500_000) this.unitsOfForm.clear();
      this.unitsOfForm.set(form.folded, us);
    }
    return us;
  }

  score(title: string, heading: string, body: string): Map<string, number> {
    const counts = new Map<string, [number, number, number]>();
    const lengths: [number, number, number] = [0, 0, 0];
    ([title, heading, body] as const).forEach((field, f) => {
      let length = 0;
      for (const m of field.matchAll(WORD_TOKEN)) {
        length++;
        for (const u of this.unitsOf(m[0])) {
          let c = counts.get(u);
          if (!c) counts.set(u, (c = [0, 0, 0]));
          c[f] = c[f]! + 1;
        }
      }
      lengths[f] = length;
    });
    return new Map([...counts].map(([u, c]) => [u, saturation(c as Fields, lengths, this.model)]));
  }
}

/** Scores chunks for every heavy unit they hold, keeping each unit's best. */
export class TopsBuilder {
  private readonly heaps = new Map<string, Heap>();
  private readonly scorer: ChunkScorer;

  constructor(
    units: ReadonlySet<string>,
    model: TopsModel,
    seed: Iterable<[string, Top]> = [],
    private readonly depth = TOPS_K,
  ) {
    this.scorer = new ChunkScorer(units, model);
    for (const [unit, top] of seed) {
      if (!units.has(unit)) continue;
      const h = this.heap(unit);
      top.rowids.forEach((r, i) => h.push(r, top.scores[i]!));
      h.matches = top.matches;
    }
  }

  private heap(unit: string): Heap {
    let h = this.heaps.get(unit);
    if (!h) this.heaps.set(unit, (h = new Heap(this.depth)));
    return h;
  }

  add(rowid: number, title: string, heading: string, body: string): void {
    for (const [u, s] of this.scorer.score(title, heading, body)) {
      const h = this.heap(u);
      h.matches++;
      h.push(rowid, s);
    }
  }

  /** Drops entries for chunks that are gone; a unit that held all its chunks still does. */
  prune(alive: (rowid: number) => boolean): void {
    for (const [u, h] of this.heaps) {
      const top = h.top();
      const keep = top.rowids.map((r, i) => [r, top.scores[i]!] as const).filter(([r]) => alive(r));
      if (keep.length === top.rowids.length) continue;
      const fresh = new Heap(this.depth);
      for (const [r, s] of keep) fresh.push(r, s);
      fresh.matches = Math.max(keep.length, h.matches - (top.rowids.length - keep.length));
      this.heaps.set(u, fresh);
    }
  }

  tops(): Map<string, Top> {
    return new Map([...this.heaps].map(([u, h]) => [u, h.top()]));
  }
}
