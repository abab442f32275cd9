// The upgrade migration 12 leaves in an index that held chunks: each chunk's text packed
// (index-functions.ts), a batch of rowids per transaction with the cursor in meta, after the
// substrings upgrade (whose triggers read the text column). Packing rewrites no index: the word
// index is contentless, the trigram index reads only the chunks that stay plain, and the triggers
// of store/triggers.ts fire on no update of text.
import { wantRewrite } from '../compact.js';
import type { Db } from '../db.js';
import { CHUNK_TRIGGERS, DROP_CHUNK_TRIGGERS } from '../triggers.js';
import { batchEnd, moveUpgrade, readUpgrade, type UpgradeState } from './cursor.js';
import { substringsUpgrade } from './substrings.js';

const KEY = 'packing_upgrade';

export function packingUpgrade(db: Db): UpgradeState | null {
  return readUpgrade(db, KEY);
}

/** Whether chunks are written packed: once the substrings upgrade has put its triggers in place. */
export function packingOn(db: Db): boolean {
  return substringsUpgrade(db) === null;
}

/** Packs the chunks after the cursor, up to `rows` of them, in one transaction; the state after (null: done). */
export function upgradePacking(db: Db, rows: number): UpgradeState | null {
  return db
    .transaction((): UpgradeState | null => {
      const state = packingUpgrade(db);
      if (!state || !packingOn(db)) return state;
      // The triggers of store/triggers.ts, whatever an earlier build left: an update of text must not
      // write the word index again (from the '' it leaves in the column).
      if (state.cursor === 0) db.exec(DROP_CHUNK_TRIGGERS + CHUNK_TRIGGERS);
      const to = batchEnd(db, state, rows);
      db.prepare(
        `UPDATE chunks SET packed = kb_pack(text), text = ''
         WHERE rowid > ? AND rowid <= ? AND packed IS NULL AND NOT kb_spaceless(text)`,
      ).run(state.cursor, to);
      const next = moveUpgrade(db, KEY, state, to);
      // The rows shrank where they stand: their pages are half empty until the file is rewritten (kb gc).
      if (!next && state.end > 0) wantRewrite(db);
      return next;
    })
    .immediate();
}
