// PostgreSQL migration 16: each document's number of passages, kept by trigger. The Library sorted by
// passages counted every document's chunks under row-level security, per document: 450 ms for a page
// at 13,000 documents (npm run bench -- hostile), and every document's facts counted them again. The
// trigger is named to run before the chunks' other triggers: a document's row is locked before the
// words' counts, as an ingest that writes the document first locks them.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 16,
  name: "documents.chunk_count: a document's passages, counted by trigger",
  sql: `
ALTER TABLE documents ADD COLUMN chunk_count integer NOT NULL DEFAULT 0;
UPDATE documents d SET chunk_count = c.n FROM (SELECT doc_id, count(*) AS n FROM chunks GROUP BY doc_id) c WHERE c.doc_id = d.id;
CREATE INDEX documents_chunk_count ON documents (chunk_count);

CREATE FUNCTION chunks_counted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE documents d SET chunk_count = d.chunk_count + a.n
      FROM (SELECT doc_id, count(*) AS n FROM added GROUP BY doc_id ORDER BY doc_id) a WHERE d.id = a.doc_id;
  ELSE
    UPDATE documents d SET chunk_count = d.chunk_count - r.n
      FROM (SELECT doc_id, count(*) AS n FROM removed GROUP BY doc_id ORDER BY doc_id) r WHERE d.id = r.doc_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_a_added AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_counted();
CREATE TRIGGER chunks_a_removed AFTER DELETE ON chunks REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_counted();
`,
};
