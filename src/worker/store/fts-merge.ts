// The word indexes merged whole, a step at a time. FTS5 keeps an index as b-trees (segments) that
// it merges as they pile up, but a rewritten or deleted chunk leaves its old entries and a delete
// marker behind until a merge reaches the oldest segment: after 100,000 passages edited at a
// million, searches took a third longer (lexical p95 10 → 14 ms). 'merge' with a negative page
// count merges every segment into one, that many pages a step, each step a transaction of its own:
// 137 steps of 500 pages (about 30 ms each) merged that index in 4.3 s, and searches were as quick
// as before the edits. A search waits for the step under way: steps are kept short.
import type { Db } from './db.js';
import { readMeta, writeMeta } from './meta.js';

/** Every FTS5 index kb keeps: the words, the substrings, the words' substrings, the file names. */
export const FTS_TABLES = ['chunks_fts', 'chunks_tri', 'words_tri', 'documents_names'] as const;
export type FtsTable = (typeof FTS_TABLES)[number];

/** Pages a step writes: ~6 ms of work at a million passages, the longest a search waits for one. */
const PAGES = 100;
/**
 * Chunks deleted (a document removed, or edited: its old chunks go) since the last whole merge, as a
 * share of the index, that make another due. New chunks alone never do: FTS5's own merges keep them
 * (a fresh million-passage index searched as fast in 12 b-trees as in one), and merging the whole
 * index after each part of a big ingest rewrote it ten times over.
 */
const DELETED_SHARE = 0.05;
/** …and at least this many: below, a merge would mostly rewrite what did not change. */
export const DELETED_MIN = 5000;
const STATE_KEY = 'fts_merged';

/** The chunks as a merge saw them: the last rowid written, and how many there were. */
export interface MergeMark {
  last: number;
  count: number;
}

export function chunkMark(db: Db): MergeMark {
  return db.prepare<[], MergeMark>('SELECT coalesce(max(rowid), 0) AS last, count(*) AS count FROM chunks').get()!;
}

/** Chunks deleted since the mark: those there were, and those written since (rowids past it), less those there are. */
export function deletedSince(mark: MergeMark, now: MergeMark): number {
  const written = Math.max(0, now.last - mark.last);
  return Math.max(0, mark.count + written - now.count);
}

function lastMerge(db: Db): MergeMark {
  try {
    const m = JSON.parse(readMeta(db, STATE_KEY) ?? 'null') as MergeMark | null;
    if (m && Number.isFinite(m.last) && Number.isFinite(m.count)) return m;
  } catch {
    // an unreadable mark: as if never merged
  }
  return { last: 0, count: 0 };
}

/** Whether enough was deleted since the last whole merge (ever, on an index never merged so) for another. */
export function mergeDue(db: Db, now: MergeMark = chunkMark(db)): boolean {
  return deletedSince(lastMerge(db), now) >= Math.max(DELETED_MIN, DELETED_SHARE * now.count);
}

/** Records that the indexes were merged whole as they were at `mark` (taken when the merge began). */
export function markMerged(db: Db, mark: MergeMark): void {
  writeMeta(db, STATE_KEY, JSON.stringify(mark));
}

/**
 * One step of one index's whole merge; whether it merged anything. FTS5 changes fewer than two rows
 * when there was nothing left to merge.
 */
export function mergeStep(db: Db, table: FtsTable): boolean {
  const total = db.prepare<[], { n: number }>('SELECT total_changes() AS n');
  const before = total.get()!.n;
  db.prepare(`INSERT INTO ${table}(${table}, rank) VALUES('merge', -${PAGES})`).run();
  return total.get()!.n - before >= 2;
}

/** How many segments an index is in (one after a whole merge). */
export function segments(db: Db, table: FtsTable): number {
  return db.prepare<[], { n: number }>(`SELECT count(DISTINCT segid) AS n FROM ${table}_idx`).get()!.n;
}
