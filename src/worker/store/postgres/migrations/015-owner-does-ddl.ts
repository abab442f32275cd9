// PostgreSQL migration 15: what kb changes in the schema while it runs — a vector table for a new
// embedding model, its HNSW index, dropping an old one, the planner's statistics — done by functions
// that run with the rights of the role that migrated the schema (its owner). A team server then
// connects as a role that owns nothing (kb grant-server, issue 50): it reads and writes rows, and
// cannot switch row-level security off or change a table. Only the owner and the roles it names may
// call them (a role that may merely connect to the database must not drop a vector table).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 15,
  name: 'schema changes at run time go through functions of the owner',
  sql: `
-- A model's table (vectors/table-name.ts), or one a reindex builds beside it (vectors/reindex.ts).
CREATE FUNCTION kb_vector_table(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF t !~ '^chunks_[0-9a-f]{16}(_[0-9a-z]{1,16})?$' THEN RAISE EXCEPTION 'not a vector table name: %', t; END IF;
  RETURN t;
END $$;

CREATE FUNCTION kb_create_vectors(t text, dimension integer) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = kb, public, pg_temp AS $$
BEGIN
  IF dimension < 1 OR dimension > 16000 THEN RAISE EXCEPTION 'not a vector dimension: %', dimension; END IF;
  EXECUTE format(
    'CREATE TABLE IF NOT EXISTS %I (
       chunk_id  text PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE,
       doc_id    text NOT NULL,
       embedding vector(%s) NOT NULL,
       type      text NOT NULL,
       lang      text NOT NULL,
       tags      text NOT NULL,
       path      text NOT NULL)', kb_vector_table(t), dimension);
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I (doc_id)', t || '_doc', t);
  -- A vector is visible with its passage's collection, which it carries (migration 9).
  PERFORM kb_guard_vectors(t);
END $$;

CREATE FUNCTION kb_drop_vectors(t text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = kb, public, pg_temp AS $$
BEGIN
  EXECUTE format('DROP TABLE IF EXISTS %I', kb_vector_table(t));
END $$;

-- Not CONCURRENTLY (that cannot run in a function): writes to this one table wait for the build.
-- The store builds concurrently itself when it owns the table (store/postgres/vectors.ts).
CREATE FUNCTION kb_index_vectors(t text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER
SET search_path = kb, public, pg_temp SET maintenance_work_mem = '512MB' AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(kb_vector_table(t) || '_hnsw') AND NOT indisvalid) THEN
    EXECUTE format('DROP INDEX %I', t || '_hnsw');
  END IF;
  EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I USING hnsw (embedding vector_cosine_ops)', t || '_hnsw', t);
END $$;

-- The planner's statistics after a large batch (store/postgres/pg-store.ts): ANALYZE needs the owner.
CREATE FUNCTION kb_analyze() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = kb, public, pg_temp AS $$
BEGIN
  ANALYZE documents, chunks, document_tags, tags, word_stats;
END $$;

REVOKE EXECUTE ON FUNCTION kb_create_vectors(text, integer), kb_drop_vectors(text), kb_index_vectors(text), kb_analyze() FROM PUBLIC;
`,
};
