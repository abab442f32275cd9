// PostgreSQL migration 5: the originals' bytes in the database, so any server process can serve any
// document. A blob is its row (written last in its transaction: present means whole) and its parts of
// a megabyte each, streamed in and out, never held whole in memory; stored as they are (EXTERNAL):
// PDFs, recordings and images are compressed already. Migration 1's blobs table held nothing yet.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 5,
  name: 'originals in the database, a megabyte a part',
  sql: `
DROP TABLE blobs;

CREATE TABLE blobs (
  sha256 text PRIMARY KEY,
  size   bigint NOT NULL
);

CREATE TABLE blob_parts (
  sha256 text NOT NULL REFERENCES blobs (sha256) ON DELETE CASCADE,
  part   integer NOT NULL,
  bytes  bytea NOT NULL,
  PRIMARY KEY (sha256, part)
);
ALTER TABLE blob_parts ALTER COLUMN bytes SET STORAGE EXTERNAL;
`,
};
