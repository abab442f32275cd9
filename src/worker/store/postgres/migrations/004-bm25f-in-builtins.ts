// PostgreSQL migration 4: kb_bm25f (migration 1) goes. A search computes BM25F with ts_rank_cd, one
// C call per query word (store/postgres/word-index.ts), three times faster than the PL/pgSQL loop.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 4,
  name: 'BM25F from ts_rank_cd: kb_bm25f dropped',
  sql: `
DROP FUNCTION kb_bm25f(tsvector, integer, integer, integer, text[], float8[], boolean[], float8[], float8[], float8, float8);
`,
};
