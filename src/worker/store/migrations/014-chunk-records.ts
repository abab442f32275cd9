// Migration 14. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 14,
  name: "a chunk's heading, anchor and text packed as one record, against a dictionary the index trains",
  sql: `
-- A packed chunk in format 2 holds its heading and anchor too ('' in their columns); statements read
-- them through kb_heading and kb_anchor (store/packed-chunks.ts). The dictionaries it is deflated
-- against are learnt from the index's own chunks (store/pack-dictionaries.ts) and never change:
-- chunks name them by id. The chunks packed in format 1 are repacked by the records upgrade
-- (store/upgrades/records.ts), a batch of rowids at a time.
CREATE TABLE pack_dictionaries (
  id      INTEGER PRIMARY KEY,
  dict    BLOB NOT NULL,
  -- the highest chunk rowid when it was trained: the next is trained when the index is 8× that
  chunks  INTEGER NOT NULL,
  made_at INTEGER NOT NULL
) STRICT;
INSERT INTO meta(key, value) SELECT 'records_upgrade', json_object('cursor', 0, 'end', coalesce(max(rowid), 0)) FROM chunks;
`,
};
