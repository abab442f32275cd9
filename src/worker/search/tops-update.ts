// One update of the heavy units' tops (tops.ts), on a connection of its own: from scratch when there
// are none or they no longer rank as the index would, else the chunks written since the last update
// added and the deleted ones dropped. Run on a thread (tops-thread.ts): a first build reads every
// chunk (about 80 s at a million).
import { WordTopsTable } from '../store/word-tops.js';
import type { Db } from '../store/db.js';
import {
  decodeTop,
  encodeTop,
  heavyAt,
  heavyUnits,
  stillValid,
  TOPS_INDEX_FACTOR,
  TopsBuilder,
  type TopsModel,
  type TopsState,
} from './tops.js';

export interface TopsUpdateResult {
  kind: 'built' | 'updated' | 'current' | 'cleared' | 'none';
  units: number;
  /** Chunks read and scored. */
  scanned: number;
}

export function readTopsState(table: WordTopsTable): TopsState | null {
  const raw = table.state();
  if (!raw) return null;
  try {
    return JSON.parse(raw) as TopsState;
  } catch {
    return null;
  }
}

export type TopsWork = 'none' | 'clear' | 'build' | 'update' | 'current';

/** What an update would do now: cheap (two reads), so a host asks before it starts a thread. */
export function topsWork(table: WordTopsTable, model: TopsModel, chunks: number, minDf: number): TopsWork {
  const prior = readTopsState(table);
  if (chunks < TOPS_INDEX_FACTOR * minDf) return table.state() === null ? 'none' : 'clear';
  if (prior === null || !stillValid(prior, model, chunks, heavyAt(minDf))) return 'build';
  return prior.upto >= table.lastRowid() ? 'current' : 'update';
}

export function updateTops(db: Db, model: TopsModel, chunks: number, minDf: number): TopsUpdateResult {
  const table = new WordTopsTable(db);
  const before = table.state();
  const prior = readTopsState(table);
  const work = topsWork(table, model, chunks, minDf);
  if (work === 'none' || work === 'current') return { kind: work, units: 0, scanned: 0 };
  if (work === 'clear') {
    table.clear();
    return { kind: 'cleared', units: 0, scanned: 0 };
  }
  const full = work === 'build' || prior === null;
  // One read transaction: the chunks, the tops and the state seen are of one moment.
  const read = db.transaction(() => {
    const stored = full ? [] : table.all();
    const units = full ? heavyUnits(table.vocabulary(), heavyAt(minDf)) : new Set(stored.map((t) => t.unit));
    const used = full ? model : prior.model;
    const builder = new TopsBuilder(
      units,
      used,
      stored.map((t) => [t.unit, decodeTop(t.entries, t.matches)] as const),
    );
    let upto = full ? 0 : prior.upto;
    let scanned = 0;
    for (const c of table.chunksAfter(upto)) {
      builder.add(c.rowid, c.title, c.heading, c.text);
      upto = c.rowid;
      scanned++;
    }
    if (!full) {
      const kept = [...new Set(stored.flatMap((t) => decodeTop(t.entries, t.matches).rowids))];
      const alive = table.existing(kept);
      const gone = new Set(kept.filter((r) => !alive.has(r)));
      builder.prune((r) => !gone.has(r));
    }
    const state: TopsState = { upto, chunks: full ? chunks : prior.chunks, model: used, heavy: heavyAt(minDf) };
    return { tops: builder.tops(), state, scanned };
  });
  const { tops, state, scanned } = read();
  const wrote = table.write(
    [...tops].map(([unit, top]) => ({ unit, matches: top.matches, entries: encodeTop(top) })),
    JSON.stringify(state),
    full,
    before,
  );
  if (!wrote) return { kind: 'none', units: 0, scanned };
  return { kind: full ? 'built' : 'updated', units: tops.size, scanned };
}
