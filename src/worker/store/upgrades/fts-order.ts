// The upgrade migration 13 leaves: every chunk written into chunks_fts_next (the word index with the
// text first), a batch of rowids per transaction with the cursor in meta, while chunks_fts answers
// and the triggers write both; then chunks_fts_next put in its place. Runs after the packing upgrade.
import { wantRewrite } from '../compact.js';
import type { Db } from '../db.js';
import { chunkTriggers, DROP_CHUNK_TRIGGERS, META_TERMS } from '../triggers.js';
import { packingUpgrade } from './packing.js';
import { batchEnd, moveUpgrade, readUpgrade, swapIn, type UpgradeState } from './cursor.js';
import { substringsUpgrade } from './substrings.js';

const KEY = 'fts_upgrade';

/** The chunks the new index holds while it is filled: passed by the cursor, or written after the upgrade began. */
const IN_NEXT = `new.rowid <= (SELECT value ->> 'cursor' FROM meta WHERE key = '${KEY}')
      OR new.rowid > (SELECT value ->> 'end' FROM meta WHERE key = '${KEY}')`;

export function ftsOrderUpgrade(db: Db): UpgradeState | null {
  return readUpgrade(db, KEY);
}

/** Whether chunks_fts has the text as its first column (the upgrade is done), or is still title first. */
export function textFirst(db: Db): boolean {
  return ftsOrderUpgrade(db) === null;
}

export function upgradeFtsOrder(db: Db, rows: number): UpgradeState | null {
  return db
    .transaction((): UpgradeState | null => {
      const state = ftsOrderUpgrade(db);
      if (!state || substringsUpgrade(db) !== null || packingUpgrade(db) !== null) return state;
      const copy = db.prepare(
        `INSERT INTO chunks_fts_next(rowid, title, heading, text, meta)
         SELECT c.rowid, d.title, kb_heading(c.packed, c.heading), kb_unpack(c.packed, c.text), ${META_TERMS}
         FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid > ? AND c.rowid <= ?`,
      );
      if (state.cursor === 0) {
        db.exec(DROP_CHUNK_TRIGGERS + chunkTriggers({ table: 'chunks_fts_next', when: IN_NEXT }));
        // Chunks written since the migration, while the upgrades before this one ran, went into
        // chunks_fts alone: the triggers that also write the new index start only now. Past the
        // cursor's end, nothing else copies them — the swap would lose their words.
        copy.run(state.end, Number.MAX_SAFE_INTEGER);
      }
      const to = batchEnd(db, state, rows);
      copy.run(state.cursor, to);
      const next = moveUpgrade(db, KEY, state, to);
      if (next) return next;
      swapIn(db, 'chunks_fts');
      if (state.end > 0) wantRewrite(db);
      return null;
    })
    .immediate();
}
