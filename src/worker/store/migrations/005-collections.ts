// Migration 5. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 5,
  name: 'collections: folders kb keeps in sync',
  sql: `
-- A folder the user added (kb add): watched while the app, kb serve or kb watch runs, and reconciled
-- with the disk on every start. Its documents are those whose path is under root (and match glob).
CREATE TABLE collections (
  name     TEXT PRIMARY KEY,
  root     TEXT NOT NULL UNIQUE,
  tags     TEXT NOT NULL DEFAULT '[]',
  glob     TEXT,
  added_at INTEGER NOT NULL
) STRICT;
`,
};
