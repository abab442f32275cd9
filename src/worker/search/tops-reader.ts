// The search's side of the heavy units' tops (tops.ts): a one-unit search takes its best chunks
// from them when they were ranked with the weights in use and hold enough chunks that pass the
// filters; otherwise it asks the word index as before. Chunks written since the last update (an
// ingest under way holds updates back) are scored here, as the update would, and ranked beside the
// kept entries — up to DELTA_MAX of them: past that the word index answers.
import { asEngine } from '../acting.js';
import type { Filters } from '../store/doc-filter.js';
import type { TopsChunk, TopsHead, TopsPort } from '../store/port.js';
import type { TopsModel, TopsState } from './tops.js';
import { ChunkScorer, complete, decodeTop, type Top } from './tops.js';
import { caughtUp, parseTopsState } from './tops-update.js';

export interface FromTops {
  rowids: number[];
  /** The unit's saturation in each (its BM25F without the idf). */
  scores: number[];
  /** Chunks holding the unit (all of them, or as many as the updates saw). */
  matches: number;
}

/**
 * Unseen chunks a search scores itself. Two editors adding notes for five minutes wrote about 6,400
 * (npm run bench -- team). Scoring one took 141 µs at 100,000 passages (about 380 units a chunk), once:
 * 10,000 are 1.4 s, so a large first scoring is done SCORED_AT_ONCE at a time, letting other work in.
 */
export const DELTA_MAX = 10_000;
const SCORED_AT_ONCE = 200;

/** The chunks the tops have not seen, scored for every kept unit they hold. */
class Delta {
  readonly known = new Set<number>();
  private readonly byUnit = new Map<string, { rowids: number[]; scores: number[] }>();
  /** Units merged since the last chunks were added. */
  private readonly mergedTops = new Map<string, Top>();
  /** The chunk generation it was last brought up to. */
  generation = -1;
  /** The rollbacks it was scored after (TopsHead.epoch): one more, and it is read again from nothing. */
  epoch = -1;

  constructor(private readonly scorer: ChunkScorer) {}

  async add(chunks: TopsChunk[]): Promise<void> {
    if (chunks.length > 0) this.mergedTops.clear();
    for (const [i, c] of chunks.entries()) {
      if (i > 0 && i % SCORED_AT_ONCE === 0) await new Promise((r) => setImmediate(r));
      if (this.known.has(c.rowid)) continue;
      this.known.add(c.rowid);
      for (const [unit, score] of this.scorer.score(c.title, c.heading, c.text)) {
        let e = this.byUnit.get(unit);
        if (!e) this.byUnit.set(unit, (e = { rowids: [], scores: [] }));
        e.rowids.push(c.rowid);
        e.scores.push(score);
      }
    }
  }

  /** The kept entries with the unseen chunks holding the unit, best first (score down, rowid up). */
  merged(unit: string, kept: Top): Top {
    const e = this.byUnit.get(unit);
    if (!e) return kept;
    const known = this.mergedTops.get(unit);
    if (known) return known;
    const seen = new Set(kept.rowids);
    const pairs = kept.rowids.map((r, i) => [r, kept.scores[i]!] as const);
    let added = 0;
    e.rowids.forEach((r, i) => {
      if (seen.has(r)) return;
      pairs.push([r, e.scores[i]!]);
      added++;
    });
    pairs.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const top = { rowids: pairs.map((p) => p[0]), scores: pairs.map((p) => p[1]), matches: kept.matches + added };
    this.mergedTops.set(unit, top);
    return top;
  }
}

export class TopsReader {
  private stateText: string | null = null;
  private state: TopsState | null = null;
  private readonly loaded = new Map<string, Top | null>();
  /** For the state read last; null before it is needed, or past DELTA_MAX. */
  private delta: Promise<Delta | null> | null = null;

  constructor(private readonly port: TopsPort) {}

  /** The head as this search read it first (newSearch()). */
  private pinned: Promise<TopsHead> | null = null;

  /**
   * A search begins: the head is read again at its first use, then kept until the next search. A
   * search asks for several units' tops (each driver, each common word, a reader's words): a team
   * reader's search read the head 3.6 times, a statement each on PostgreSQL (pg_stat_statements, 32,000
   * passages).
   */
  newSearch(): void {
    this.pinned = null;
  }

  private readHead(): Promise<TopsHead> {
    if (!this.pinned) {
      const head = this.port.head();
      this.pinned = head;
      head.catch(() => {
        if (this.pinned === head) this.pinned = null;
      });
    }
    return this.pinned;
  }

  /** The state, read again each search (one row): another process may have updated the tops. Null unless usable. */
  private async current(): Promise<{ state: TopsState; delta: Delta | null } | null> {
    const head = await this.readHead();
    if (head.state !== this.stateText) {
      this.stateText = head.state;
      this.state = parseTopsState(head.state);
      this.loaded.clear();
      this.delta = null;
    }
    const state = this.state;
    if (!state) return null;
    if (caughtUp(state, head)) return { state, delta: null };
    const delta = await this.caughtUpDelta(state, head.generation, head.epoch);
    return delta ? { state, delta } : null;
  }

  /** The unseen chunks scored, brought up to `generation`: only chunks not scored before are read. */
  private caughtUpDelta(state: TopsState, generation: number, epoch: number): Promise<Delta | null> {
    const before = this.delta;
    const next = (async (): Promise<Delta | null> => {
      const kept = before ? await before : null;
      const prior = kept?.epoch === epoch ? kept : null;
      if (prior?.generation === generation) return prior;
      // As the engine: the tops rank every passage; passing() says which the user may read.
      const chunks = await asEngine(() => this.port.unseenChunks(state.upto, [...(prior?.known ?? [])], DELTA_MAX));
      if (!chunks) return null; // too many: the word index answers, and the units are not read
      const delta = prior ?? new Delta(new ChunkScorer(new Set(await this.port.unitNames()), state.model));
      await delta.add(chunks);
      delta.generation = generation;
      delta.epoch = epoch;
      return delta;
    })();
    this.delta = next;
    next.catch(() => {
      if (this.delta === next) this.delta = null;
    });
    return next;
  }

  private async load(unit: string): Promise<Top | null> {
    let top = this.loaded.get(unit);
    if (top === undefined) {
      const row = await this.port.get(unit);
      top = row ? decodeTop(row.entries, row.matches) : null;
      if (this.loaded.size > 5000) this.loaded.clear();
      this.loaded.set(unit, top);
    }
    return top;
  }

  /** The unit's `depth` best chunks that pass the filters, best first; null when the tops cannot say. */
  async best(unit: string, model: TopsModel, filters: Filters, depth: number): Promise<FromTops | null> {
    const now = await this.current();
    if (!now || !sameRanking(now.state.model, model)) return null;
    const kept = await this.load(unit);
    if (!kept) return null;
    const top = now.delta ? now.delta.merged(unit, kept) : kept;
    const rowids: number[] = [];
    const scores: number[] = [];
    // Entries are checked a slice at a time (most pass): a search of ten hits asks about a few dozen
    // chunks, not all the entries.
    for (let from = 0, size = depth + 8; from < top.rowids.length && rowids.length < depth; from += size, size *= 2) {
      const slice = top.rowids.slice(from, from + size);
      const passing = await this.port.passing(slice, filters);
      for (let i = 0; i < slice.length && rowids.length < depth; i++) {
        if (!passing.has(slice[i]!)) continue;
        rowids.push(slice[i]!);
        scores.push(top.scores[from + i]!);
      }
    }
    // Fewer than asked: the whole answer only if every chunk holding the unit is among the entries.
    if (rowids.length < depth && !complete(top)) return null;
    return { rowids, scores, matches: top.matches };
  }
}

/** Weights, k1 and b as configured: averages drift a little between updates without reordering much. */
function sameRanking(a: TopsModel, b: TopsModel): boolean {
  return (
    a.k1 === b.k1 && a.b === b.b && a.weights.every((w, i) => w === b.weights[i]) && (a.stemPrefixes ?? false) === (b.stemPrefixes ?? false)
  );
}
