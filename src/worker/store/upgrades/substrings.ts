// The upgrade migration 11 leaves behind on an index that held chunks: the chunks in scripts without
// spaces copied into chunks_tri_next and every chunk's compound words into words, a batch of rowids
// at a time (each batch one transaction, the cursor in meta moving with it: stopped anywhere, it goes
// on from there), then chunks_tri_next put in the place of chunks_tri — which answered every
// substring search until then — and the triggers of store/triggers.ts in place of migration 11's.
import type { Db } from '../db.js';
import { batchEnd, moveUpgrade, readUpgrade, swapIn, type UpgradeState } from './cursor.js';

const KEY = 'substrings_upgrade';

export type { UpgradeState };

/** How far the upgrade is, or null when there is none to do (done, or a new index). */
export function substringsUpgrade(db: Db): UpgradeState | null {
  return readUpgrade(db, KEY);
}

/**
 * Does the chunks after the cursor up to `rows` of them, in one transaction; the last batch also
 * puts the new trigram index in place. Returns the state after it (null: the upgrade is done).
 */
export function upgradeSubstrings(db: Db, rows: number): UpgradeState | null {
  return db
    .transaction((): UpgradeState | null => {
      // Read inside the transaction: another process may have moved it.
      const state = substringsUpgrade(db);
      if (!state) return null;
      const to = batchEnd(db, state, rows);
      db.prepare(
        'INSERT INTO chunks_tri_next(rowid, text) SELECT rowid, text FROM chunks WHERE rowid > ? AND rowid <= ? AND kb_spaceless(text)',
      ).run(state.cursor, to);
      db.prepare(
        `INSERT OR IGNORE INTO words(word) SELECT j.value FROM chunks c, json_each(kb_compound_words(c.text)) j
         WHERE c.rowid > ? AND c.rowid <= ?`,
      ).run(state.cursor, to);
      const next = moveUpgrade(db, KEY, state, to);
      if (next) return next;
      swapIn(db, 'chunks_tri');
      return null;
    })
    .immediate();
}
