// Migration 10. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 10,
  name: 'the best chunks of each heavy word and prefix, kept ahead of the search',
  sql: `
-- For a word or prefix in thousands of chunks FTS5 scores every one of them (a typed "con" took
-- 400 ms at a million chunks). This holds, per such unit ('w:' stem, 'p:' prefix), the chunks that
-- score best for it alone, best first: search/tops.ts builds and reads it, and documents
-- what the entries are. Derived data: dropping a row only makes that unit's search slower.
CREATE TABLE word_tops (
  unit     TEXT PRIMARY KEY,
  matches  INTEGER NOT NULL,
  entries  BLOB NOT NULL
) STRICT, WITHOUT ROWID;
`,
};
