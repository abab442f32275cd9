// The search's side of the heavy units' tops (tops.ts): a one-unit search takes its best chunks
// from them when they are current (they have seen every chunk written, and were ranked with the
// weights in use) and hold enough chunks that pass the filters; otherwise it asks the word index as before.
import type { Filters } from '../store/doc-filter.js';
import type { TopsPort } from '../store/port.js';
import type { TopsModel, TopsState } from './tops.js';
import { complete, decodeTop, type Top } from './tops.js';
import { caughtUp, parseTopsState } from './tops-update.js';

export interface FromTops {
  rowids: number[];
  /** The unit's saturation in each (its BM25F without the idf). */
  scores: number[];
  /** Chunks holding the unit (all of them, or as many as the updates saw). */
  matches: number;
}

export class TopsReader {
  private stateText: string | null = null;
  private state: TopsState | null = null;
  private readonly loaded = new Map<string, Top | null>();

  constructor(private readonly port: TopsPort) {}

  /** The state, read again each search (one row): another process may have updated the tops. Null unless current. */
  private async current(): Promise<TopsState | null> {
    const head = await this.port.head();
    if (head.state !== this.stateText) {
      this.stateText = head.state;
      this.state = parseTopsState(head.state);
      this.loaded.clear();
    }
    return this.state && caughtUp(this.state, head) ? this.state : null;
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
    const state = await this.current();
    if (!state || !sameRanking(state.model, model)) return null;
    const top = await this.load(unit);
    if (!top) return null;
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
  return a.k1 === b.k1 && a.b === b.b && a.weights.every((w, i) => w === b.weights[i]);
}
