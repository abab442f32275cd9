// PostgreSQL migration 8: who may read what, enforced by the database (issue 35). Every statement runs
// for the user its session names in `kb.user`: '@admin' (the database's own credentials: the CLI, a
// personal server), a user's name (a team server, per request), or nothing — and then it sees nothing.
// A document belongs to the collection whose folder holds it (set by trigger, so kb cannot forget);
// its passages carry the same collection; vectors, originals, OCR pages, transcripts and tags are
// visible with their document. Admins see everything; others the collections granted to them or to
// @all. FORCE makes the tables' owner — kb's own role — obey the policies too.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 8,
  name: 'row-level security: documents and all they hold, by collection and grant',
  sql: `
ALTER TABLE documents ADD COLUMN collection text REFERENCES collections (name) ON DELETE SET NULL;
ALTER TABLE chunks ADD COLUMN collection text;
CREATE INDEX documents_collection ON documents (collection);

-- The collection whose folder holds a path: the deepest one.
CREATE FUNCTION kb_collection_of(p text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT name FROM collections WHERE starts_with(p, rtrim(root, '/') || '/') ORDER BY length(root) DESC LIMIT 1
$$;

CREATE FUNCTION documents_collection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.collection := kb_collection_of(NEW.path);
  RETURN NEW;
END $$;
CREATE TRIGGER documents_in_collection BEFORE INSERT OR UPDATE OF path ON documents
  FOR EACH ROW EXECUTE FUNCTION documents_collection();

CREATE FUNCTION chunks_collection() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.collection := (SELECT collection FROM documents WHERE id = NEW.doc_id);
  RETURN NEW;
END $$;
CREATE TRIGGER chunks_in_collection BEFORE INSERT ON chunks FOR EACH ROW EXECUTE FUNCTION chunks_collection();

-- A document that moved to another collection takes its passages along.
CREATE FUNCTION documents_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chunks SET collection = NEW.collection WHERE doc_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER documents_moved AFTER UPDATE ON documents
  FOR EACH ROW WHEN (OLD.collection IS DISTINCT FROM NEW.collection) EXECUTE FUNCTION documents_moved();

-- A collection added (or forgotten) over documents already indexed: they move into (or out of) it.
CREATE FUNCTION collections_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE documents d SET collection = kb_collection_of(d.path) WHERE d.collection IS DISTINCT FROM kb_collection_of(d.path);
  RETURN NULL;
END $$;
CREATE TRIGGER collections_move AFTER INSERT OR DELETE ON collections FOR EACH STATEMENT EXECUTE FUNCTION collections_changed();

UPDATE documents SET collection = kb_collection_of(path);
UPDATE chunks c SET collection = d.collection FROM documents d WHERE d.id = c.doc_id AND d.collection IS NOT NULL;

-- Who the session acts for.
CREATE FUNCTION kb_actor() RETURNS text LANGUAGE sql STABLE AS $$ SELECT nullif(current_setting('kb.user', true), '') $$;
-- The database's own credentials, or an admin.
CREATE FUNCTION kb_sees_all() RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = kb AS $$
  SELECT kb_actor() = '@admin' OR EXISTS (SELECT 1 FROM users WHERE name = kb_actor() AND role = 'admin')
$$;
-- The collections granted to the session's user, or to everyone.
CREATE FUNCTION kb_readable() RETURNS text[] LANGUAGE sql STABLE SECURITY DEFINER SET search_path = kb AS $$
  SELECT coalesce(array_agg(DISTINCT collection), '{}') FROM collection_grants
  WHERE kb_actor() IS NOT NULL AND (grantee = kb_actor() OR grantee = '@all')
    AND EXISTS (SELECT 1 FROM users WHERE name = kb_actor())
$$;
-- Whether the session may change what a collection holds: admins, and editors granted it.
CREATE FUNCTION kb_writable(c text) RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = kb AS $$
  SELECT kb_sees_all() OR (c IS NOT NULL AND EXISTS (
    SELECT 1 FROM users u JOIN collection_grants g ON g.grantee IN (u.name, '@all')
    WHERE u.name = kb_actor() AND u.role = 'editor' AND g.collection = c))
$$;

ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE documents FORCE ROW LEVEL SECURITY;
ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunks FORCE ROW LEVEL SECURITY;
-- Reading is asked once per statement (the sub-selects are computed once); writing, per row, by
-- command: a FOR ALL policy would be asked of every row a search reads as well.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['documents', 'chunks'] LOOP
    EXECUTE format('CREATE POLICY %I ON %I FOR SELECT USING ((SELECT kb_sees_all()) OR collection = ANY ((SELECT kb_readable())::text[]))', t || '_read', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR INSERT WITH CHECK (kb_writable(collection))', t || '_add', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR UPDATE USING (kb_writable(collection)) WITH CHECK (kb_writable(collection))', t || '_change', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR DELETE USING (kb_writable(collection))', t || '_remove', t);
  END LOOP;
END $$;

-- What a document holds is visible with it (whoever sees everything is not asked per row).
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['originals', 'ocr_pages', 'transcripts', 'document_tags'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR ALL USING ((SELECT kb_sees_all()) OR EXISTS (SELECT 1 FROM documents d WHERE d.id = doc_id))', t || '_with_document', t);
  END LOOP;
END $$;

-- An original's bytes are visible while some visible document holds them; anyone who may add a
-- document may add its bytes (written before the document that names them); only an admin deletes.
ALTER TABLE blobs ENABLE ROW LEVEL SECURITY;
ALTER TABLE blobs FORCE ROW LEVEL SECURITY;
CREATE POLICY blobs_read ON blobs FOR SELECT
  USING ((SELECT kb_sees_all()) OR EXISTS (SELECT 1 FROM originals o WHERE o.blob = blobs.sha256));
CREATE POLICY blobs_add ON blobs FOR INSERT WITH CHECK (kb_actor() IS NOT NULL);
CREATE POLICY blobs_remove ON blobs FOR DELETE USING (kb_sees_all());
ALTER TABLE blob_parts ENABLE ROW LEVEL SECURITY;
ALTER TABLE blob_parts FORCE ROW LEVEL SECURITY;
CREATE POLICY blob_parts_read ON blob_parts FOR SELECT
  USING ((SELECT kb_sees_all()) OR EXISTS (SELECT 1 FROM blobs b WHERE b.sha256 = blob_parts.sha256));
CREATE POLICY blob_parts_add ON blob_parts FOR INSERT WITH CHECK (kb_actor() IS NOT NULL);
CREATE POLICY blob_parts_remove ON blob_parts FOR DELETE USING (kb_sees_all());

-- Vector tables (one per embedding model: store/postgres/vectors.ts gives new ones the same policy):
-- a vector is visible with its passage. Asked first whether the session sees everything (once per
-- statement): the passage looked up for each candidate the index hands a search cost a hybrid search
-- three times its time.
DO $$
DECLARE t text;
BEGIN
  FOR t IN SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9a-f]{16}' LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY with_passage ON %I FOR ALL USING ((SELECT kb_sees_all()) OR EXISTS (SELECT 1 FROM chunks c WHERE c.id = chunk_id))', t);
  END LOOP;
END $$;
`,
};
