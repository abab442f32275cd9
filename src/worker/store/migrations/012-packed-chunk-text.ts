// Migration 12. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 12,
  name: "chunk text packed (deflate): the text column is '' where packed holds it",
  sql: `
-- Every statement reads a chunk's text as kb_unpack(packed, text) (store/index-functions.ts). Chunks
-- written from now on are packed once the substrings upgrade is done (its triggers read new.text);
-- the chunks already there are packed by the packing upgrade (store/upgrades/packing.ts), a batch of
-- rowids at a time. Chunks in scripts without spaces stay plain: the trigram index reads the column.
ALTER TABLE chunks ADD COLUMN packed BLOB;
INSERT INTO meta(key, value) SELECT 'packing_upgrade', json_object('cursor', 0, 'end', coalesce(max(rowid), 0)) FROM chunks;
`,
};
