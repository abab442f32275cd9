// Migration 15. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 15,
  name: "the query planner's statistics tables, made with the schema",
  sql: `
-- PRAGMA optimize, run as kb closes the index, creates sqlite_stat1 and sqlite_stat4 the first time:
-- a change of schema, which another process working in the same index meets in the middle of its
-- next statements. Made here, under the migrations' write lock, they exist before anyone else looks;
-- filling them later changes no schema. (ANALYZE of sqlite_schema alone makes them and costs nothing.)
ANALYZE sqlite_schema;
`,
};
