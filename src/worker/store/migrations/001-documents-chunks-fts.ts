// Migration 1. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 1,
  name: 'documents, chunks, tags, FTS5 (porter + trigram)',
  sql: `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE documents (
  id              TEXT PRIMARY KEY,
  path            TEXT NOT NULL UNIQUE,
  root            TEXT,
  title           TEXT NOT NULL DEFAULT '',
  type            TEXT NOT NULL,
  lang            TEXT,
  content_hash    TEXT NOT NULL,
  size            INTEGER NOT NULL,
  mtime           INTEGER NOT NULL,
  page_count      INTEGER,
  duration        REAL,
  parser_version  INTEGER NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('indexed', 'failed')),
  error           TEXT,
  original        TEXT NOT NULL CHECK (original IN ('copy', 'reference')),
  added_at        INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX documents_hash ON documents(content_hash);
CREATE INDEX documents_type ON documents(type);

-- rowid is the FTS key; id is the stable, content-derived chunk id used on the wire.
CREATE TABLE chunks (
  rowid           INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  doc_id          TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  ordinal         INTEGER NOT NULL,
  -- heading path or symbol path; also the citation's section label
  heading         TEXT NOT NULL,
  text            TEXT NOT NULL,
  anchor          TEXT NOT NULL,
  chunker_version INTEGER NOT NULL
) STRICT;
CREATE INDEX chunks_doc ON chunks(doc_id, ordinal);

CREATE TABLE tags (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE document_tags (
  doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags(id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, doc_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX document_tags_doc ON document_tags(doc_id);

CREATE TABLE ingest_errors (
  id         INTEGER PRIMARY KEY,
  path       TEXT NOT NULL,
  code       TEXT NOT NULL,
  message    TEXT NOT NULL,
  at         INTEGER NOT NULL
) STRICT;
CREATE INDEX ingest_errors_path ON ingest_errors(path);

-- Where the user's original bytes are kept: a content-addressed copy in the data dir, or a reference.
CREATE TABLE originals (
  doc_id   TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  mode     TEXT NOT NULL CHECK (mode IN ('copy', 'reference')),
  blob     TEXT,
  sha256   TEXT NOT NULL
) STRICT;
CREATE INDEX originals_blob ON originals(blob);

-- Contentless: bm25 needs only the index, and the title lives once in documents. Rows are deleted by rowid.
-- meta holds filter tokens (kbtype<n>, kblang<hex>0, kbtag<id>) so filters run inside MATCH as doclist
-- intersections; bm25 gives it weight 0. Tokens end in a digit so the porter stemmer leaves them alone.
CREATE VIRTUAL TABLE chunks_fts USING fts5(
  title, heading, text, meta,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Document frequencies of index terms, for idf in query-side ranking.
CREATE VIRTUAL TABLE chunks_vocab USING fts5vocab(chunks_fts, 'row');

-- Substring and CJK/Korean matching. detail=none keeps it small; FTS5 then checks phrases against the text.
CREATE VIRTUAL TABLE chunks_tri USING fts5(
  text,
  content = 'chunks', content_rowid = 'rowid',
  tokenize = 'trigram', detail = 'none'
);

-- Documents and their tags are written before their chunks, so title and meta read here are current.
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
-- Also fired by "UPDATE chunks SET heading = heading" to refresh meta after a document's tags change.
CREATE TRIGGER chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
`,
};
