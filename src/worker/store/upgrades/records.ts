// The upgrade migration 14 leaves in an index that held chunks: each chunk packed in format 1 (its
// text alone) repacked as a record of its heading, anchor and text against the index's dictionary
// (store/packed-chunks.ts), a batch of rowids per transaction with the cursor in meta, after the
// other upgrades. Its first batch puts the triggers of store/triggers.ts in place (they read the
// heading through kb_heading, and a repack re-indexes nothing) and trains the dictionary.
import { wantRewrite } from '../compact.js';
import type { Db } from '../db.js';
import { dictionariesOf } from '../index-functions.js';
import { CHUNK_TRIGGERS, DROP_CHUNK_TRIGGERS } from '../triggers.js';
import { batchEnd, moveUpgrade, readUpgrade, type UpgradeState } from './cursor.js';
import { ftsOrderUpgrade } from './fts-order.js';
import { packingUpgrade } from './packing.js';
import { substringsUpgrade } from './substrings.js';

const KEY = 'records_upgrade';

export function recordsUpgrade(db: Db): UpgradeState | null {
  return readUpgrade(db, KEY);
}

/** Whether new chunks are written as records: once this upgrade has put its triggers in place. */
export function recordsOn(db: Db): boolean {
  const state = recordsUpgrade(db);
  return state === null || state.cursor > 0;
}

export function upgradeRecords(db: Db, rows: number): UpgradeState | null {
  // Trained before the batch's transaction: inside one it waits (pack-dictionaries.ts).
  dictionariesOf(db).refresh(db);
  return db
    .transaction((): UpgradeState | null => {
      const state = recordsUpgrade(db);
      if (!state || substringsUpgrade(db) !== null || packingUpgrade(db) !== null || ftsOrderUpgrade(db) !== null) return state;
      if (state.cursor === 0) db.exec(DROP_CHUNK_TRIGGERS + CHUNK_TRIGGERS);
      const to = batchEnd(db, state, rows);
      // The dictionaries read now, outside the statement: kb_repack runs inside it, where the
      // connection can run no statement of its own.
      dictionariesOf(db).current(db);
      db.prepare(
        `UPDATE chunks SET packed = kb_repack(packed, heading, anchor), heading = '', anchor = ''
         WHERE rowid > ? AND rowid <= ? AND packed IS NOT NULL AND heading || anchor <> ''`,
      ).run(state.cursor, to);
      // The first batch ends past rowid 0 even on an empty index: new chunks are records from now on.
      const next = moveUpgrade(db, KEY, state, Math.max(to, 1));
      if (!next && state.end > 0) wantRewrite(db);
      return next;
    })
    .immediate();
}
