// PostgreSQL migration 14: what a search by substring looks inside (store/insides.ts), a narrow table
// beside the chunks. The letters of an identifier were looked for with ILIKE over every chunk's text —
// under row-level security no index can serve ILIKE (it is not leakproof), so each word read every
// passage: 300 ms at 100,000 (npm run bench -- hostile). A row per chunk that has an inside, in the
// chunk's collection (kept by trigger, as the chunks' own is) and visible as the chunk is. The chunks
// an older kb wrote are filled in when the store opens (postgres/insides.ts), from `insides_from` down.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 14,
  name: 'chunk_insides: what substring search reads, narrow, visible with its chunk',
  sql: `
CREATE TABLE chunk_insides (
  rowid      bigint PRIMARY KEY REFERENCES chunks (rowid) ON DELETE CASCADE,
  collection text,
  inside     text NOT NULL
);

CREATE FUNCTION chunk_insides_collection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.collection := (SELECT collection FROM chunks WHERE rowid = NEW.rowid);
  RETURN NEW;
END $$;
CREATE TRIGGER chunk_insides_in_collection BEFORE INSERT ON chunk_insides
  FOR EACH ROW EXECUTE FUNCTION chunk_insides_collection();

-- A chunk that moved to another collection takes its inside along.
CREATE FUNCTION chunks_moved_insides() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chunk_insides SET collection = NEW.collection WHERE rowid = NEW.rowid;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_moved_insides AFTER UPDATE OF collection ON chunks
  FOR EACH ROW WHEN (OLD.collection IS DISTINCT FROM NEW.collection) EXECUTE FUNCTION chunks_moved_insides();

ALTER TABLE chunk_insides ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunk_insides FORCE ROW LEVEL SECURITY;
CREATE POLICY chunk_insides_read ON chunk_insides FOR SELECT
  USING ((SELECT kb_sees_all()) OR collection = ANY ((SELECT kb_readable())::text[]));
CREATE POLICY chunk_insides_add ON chunk_insides FOR INSERT WITH CHECK (kb_writable(collection));
CREATE POLICY chunk_insides_change ON chunk_insides FOR UPDATE USING (kb_writable(collection)) WITH CHECK (kb_writable(collection));
CREATE POLICY chunk_insides_remove ON chunk_insides FOR DELETE USING (kb_writable(collection));

-- The chunks already written have no inside yet: filled in from here down when the store opens.
INSERT INTO meta (key, value) SELECT 'insides_from', max(rowid)::text FROM chunks HAVING max(rowid) IS NOT NULL;
`,
};
