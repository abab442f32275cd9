// Migration 13. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 13,
  name: 'the word index with the text as its first column',
  sql: `
-- FTS5 writes a column marker (two bytes) before every position list outside column 0: with the
-- title first, every word of every body paid it. With the text first the index is a quarter
-- smaller. The fts upgrade (store/upgrades/fts-order.ts) fills this table a batch at a time while
-- chunks_fts answers, then puts it in chunks_fts's place; chunks_vocab follows the name.
CREATE VIRTUAL TABLE chunks_fts_next USING fts5(
  text, title, heading, meta,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO meta(key, value) SELECT 'fts_upgrade', json_object('cursor', 0, 'end', coalesce(max(rowid), 0)) FROM chunks;
`,
};
