// One update of the heavy units' tops (tops.ts), on a connection of its own: from scratch when there
// are none or they no longer rank as the index would, else the chunks written since the last update
// added and the deleted ones dropped. Run on a thread (tops-thread.ts): a first build reads every
// chunk (about 80 s at a million). Either store keeps them (its TopsPort).
import type { StoredTop, TopsPort } from '../store/port.js';
import {
  decodeTop,
  encodeTop,
  heavyAt,
  heavyUnits,
  stillValid,
  TOPS_INDEX_FACTOR,
  TopsBuilder,
  type Top,
  type TopsModel,
  type TopsState,
} from './tops.js';

/** Where the thread that updates the tops opens the store: the SQLite file, or the PostgreSQL URL. */
export type TopsStoreAt = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };

export interface TopsUpdateResult {
  kind: 'built' | 'updated' | 'current' | 'cleared' | 'none';
  units: number;
  /** Chunks read and scored. */
  scanned: number;
}

export function parseTopsState(raw: string | null): TopsState | null {
  if (!raw) return null;
  try {
    return JSON.parse(raw) as TopsState;
  } catch {
    return null;
  }
}

export type TopsWork = 'none' | 'clear' | 'build' | 'update' | 'current';

/** What an update would do now: cheap (one read), so a host asks before it starts a thread. */
export async function topsWork(port: TopsPort, model: TopsModel, chunks: number, minDf: number, depth: number): Promise<TopsWork> {
  const head = await port.head();
  const prior = parseTopsState(head.state);
  if (chunks < TOPS_INDEX_FACTOR * minDf) return head.state === null ? 'none' : 'clear';
  if (prior === null || !stillValid(prior, model, chunks, heavyAt(minDf), depth)) return 'build';
  return caughtUp(prior, head) ? 'current' : 'update';
}

/** The tops have seen every chunk written. */
export function caughtUp(state: TopsState, head: { lastRowid: number; pending: boolean }): boolean {
  return !head.pending && state.upto >= head.lastRowid;
}

/** `minDf` and `depth`: the tops' shape on this store (tops-upkeep.ts: search.tops_min_df and topsDepth for its scoring cost). */
export async function updateTops(
  port: TopsPort,
  model: TopsModel,
  chunks: number,
  minDf: number,
  depth: number,
): Promise<TopsUpdateResult> {
  const before = (await port.head()).state;
  const prior = parseTopsState(before);
  const work = await topsWork(port, model, chunks, minDf, depth);
  if (work === 'none' || work === 'current') return { kind: work, units: 0, scanned: 0 };
  if (work === 'clear') {
    await port.clear();
    return { kind: 'cleared', units: 0, scanned: 0 };
  }
  const full = work === 'build' || prior === null;
  const used = full ? model : prior.model;
  const read = await port.reading(async (r) => {
    const stored = full ? [] : await r.all();
    const decoded = stored.map((t): [string, Top] => [t.unit, decodeTop(t.entries, t.matches)]);
    const units = full ? await heavyUnits(r.vocabulary(), heavyAt(minDf)) : new Set(stored.map((t) => t.unit));
    const builder = new TopsBuilder(units, used, decoded, depth);
    let upto = full ? 0 : prior.upto;
    const seen: number[] = [];
    for await (const c of r.unseen(full ? null : prior.upto)) {
      builder.add(c.rowid, c.title, c.heading, c.text);
      upto = Math.max(upto, c.rowid);
      seen.push(c.rowid);
    }
    if (!full) {
      const kept = [...new Set(decoded.flatMap(([, top]) => top.rowids))];
      const alive = await r.existing(kept);
      const gone = new Set(kept.filter((rowid) => !alive.has(rowid)));
      builder.prune((rowid) => !gone.has(rowid));
    }
    const state: TopsState = {
      upto,
      chunks: full ? chunks : prior.chunks,
      model: used,
      heavy: heavyAt(minDf),
      depth,
      version: (prior?.version ?? 0) + 1,
    };
    return { tops: builder.tops(), state, seen };
  });
  if (!read) return { kind: 'none', units: 0, scanned: 0 }; // another process is updating them
  const { tops, state, seen } = read;
  const rows: StoredTop[] = [...tops].map(([unit, top]) => ({ unit, matches: top.matches, entries: encodeTop(top) }));
  if (!(await port.write(rows, JSON.stringify(state), full, before, seen))) return { kind: 'none', units: 0, scanned: seen.length };
  return { kind: full ? 'built' : 'updated', units: tops.size, scanned: seen.length };
}
