// Migration 2. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 2,
  name: 'chunk generation counter, for cheap reconciliation of the vector store',
  sql: `
-- Every chunk insert and delete bumps the generation. A vector table that was fully synced at the
-- current generation (vectors/binding.ts) needs no diff on open.
INSERT INTO meta(key, value) VALUES ('chunks_generation', '0') ON CONFLICT(key) DO NOTHING;
CREATE TRIGGER chunks_gen_ai AFTER INSERT ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunks_generation';
END;
CREATE TRIGGER chunks_gen_ad AFTER DELETE ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunks_generation';
END;
`,
};
