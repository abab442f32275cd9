// How an upgrade keeps its place: a meta row `<name>_upgrade` holding the last rowid done and the
// last rowid the index held when the migration set it up. Each batch moves it in its own transaction.
import type { Db } from '../db.js';
import { CHUNK_TRIGGERS, DROP_CHUNK_TRIGGERS } from '../triggers.js';

export interface UpgradeState {
  /** The last rowid done. */
  cursor: number;
  /** The last rowid the index held when the upgrade began (later chunks were written by the triggers). */
  end: number;
}

export function readUpgrade(db: Db, key: string): UpgradeState | null {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined;
  return row ? (JSON.parse(row.value) as UpgradeState) : null;
}

/** The last rowid of the next batch: `rows` chunks after the cursor, at most up to the end. */
export function batchEnd(db: Db, state: UpgradeState, rows: number): number {
  const r = db
    .prepare('SELECT max(rowid) AS r FROM (SELECT rowid FROM chunks WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?)')
    .get(state.cursor, state.end, rows) as { r: number | null };
  return r.r ?? state.end;
}

/** Records the cursor, or ends the upgrade (its row gone) when it reached the end. */
export function moveUpgrade(db: Db, key: string, state: UpgradeState, to: number): UpgradeState | null {
  if (to >= state.end) {
    db.prepare('DELETE FROM meta WHERE key = ?').run(key);
    return null;
  }
  const next = { cursor: to, end: state.end };
  db.prepare('UPDATE meta SET value = ? WHERE key = ?').run(JSON.stringify(next), key);
  return next;
}

/**
 * An upgrade's last step: `<table>_next`, now complete, takes `table`'s place, with the chunks'
 * triggers of store/triggers.ts. The triggers go first: SQLite checks every trigger that names a
 * table when another is renamed, and the old ones name the table being dropped.
 */
export function swapIn(db: Db, table: 'chunks_tri' | 'chunks_fts'): void {
  db.exec(DROP_CHUNK_TRIGGERS);
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${table}_next RENAME TO ${table}`);
  db.exec(CHUNK_TRIGGERS);
}
