// Migration 9. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 9,
  name: 'an index of the stored copies by content, for the bytes kb status reports without reading blobs/',
  sql: `
-- The kept copies, once per content: kb status sums them from this index alone (scanning every
-- document row took 130 ms at 140,000 documents; walking blobs/ took seconds).
CREATE INDEX documents_copies ON documents(content_hash, size) WHERE original = 'copy';
`,
};
