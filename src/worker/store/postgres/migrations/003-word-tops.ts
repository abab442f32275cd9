// PostgreSQL migration 3: the heavy units' tops (search/tops.ts), as on SQLite (its migration 10), and
// the queue of chunks they have not seen. Two writers' chunks can commit out of their rowids' order, so
// "the rowids past the last update" would miss one; each new chunk is queued by the statement that
// writes it, and leaves the queue with the update that read it (or with the chunk).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 3,
  name: 'kept tops of common words and prefixes, and the queue of chunks they have not seen',
  sql: `
CREATE TABLE word_tops (
  unit    text COLLATE "C" PRIMARY KEY,
  matches bigint NOT NULL,
  entries bytea NOT NULL
);

CREATE TABLE word_tops_queue (
  rowid bigint PRIMARY KEY REFERENCES chunks (rowid) ON DELETE CASCADE
);
INSERT INTO word_tops_queue SELECT rowid FROM chunks;

CREATE FUNCTION chunks_queued() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO word_tops_queue SELECT rowid FROM added;
  RETURN NULL;
END $$;

CREATE TRIGGER chunks_aq AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_queued();
`,
};
