// PostgreSQL migration 9: a vector row carries its passage's collection, so row-level security asks
// of each candidate the HNSW index hands a team's user only whether its collection is theirs — not a
// look-up of its passage (migration 8), which, under the iterative scan a thinned-out answer needs,
// cost a reader's search by meaning 39 ms a query on 25,000 vectors (npm run bench -- team). Set on
// insert by trigger from the passage; moved with its document when a collection is added or forgotten.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 9,
  name: 'vector rows carry their collection: row-level security without a look-up per candidate',
  sql: `
CREATE FUNCTION kb_vector_collection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.collection := (SELECT collection FROM chunks WHERE id = NEW.chunk_id);
  RETURN NEW;
END $$;

-- One vector table (one per embedding model) made to carry collections and guarded by them; the
-- store calls it for each table it creates (store/postgres/vectors.ts).
CREATE FUNCTION kb_guard_vectors(t text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('ALTER TABLE %I ADD COLUMN IF NOT EXISTS collection text', t);
  EXECUTE format('UPDATE %I v SET collection = c.collection FROM chunks c WHERE c.id = v.chunk_id AND v.collection IS DISTINCT FROM c.collection', t);
  EXECUTE format('DROP TRIGGER IF EXISTS vectors_in_collection ON %I', t);
  EXECUTE format('CREATE TRIGGER vectors_in_collection BEFORE INSERT ON %I FOR EACH ROW EXECUTE FUNCTION kb_vector_collection()', t);
  EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
  EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
  EXECUTE format('DROP POLICY IF EXISTS with_passage ON %I', t);
  EXECUTE format('DROP POLICY IF EXISTS with_collection ON %I', t);
  EXECUTE format('CREATE POLICY with_collection ON %I FOR ALL USING ((SELECT kb_sees_all()) OR collection = ANY ((SELECT kb_readable())::text[]))', t);
END $$;

-- A document that moved to another collection takes its passages and their vectors along.
CREATE OR REPLACE FUNCTION documents_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t text;
BEGIN
  UPDATE chunks SET collection = NEW.collection WHERE doc_id = NEW.id;
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9a-f]{16}' LOOP
    EXECUTE format('UPDATE %I SET collection = $1 WHERE doc_id = $2', t) USING NEW.collection, NEW.id;
  END LOOP;
  RETURN NULL;
END $$;

DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9a-f]{16}' LOOP
    PERFORM kb_guard_vectors(t);
  END LOOP;
END $$;
`,
};
