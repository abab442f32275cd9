// Numbered migrations. Never edit a shipped one: append a new one. `user_version` records the last applied.
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Indexes one new chunk row in chunks_fts: title from its document, and the filter tokens (meta). */
const FTS_INSERT = `INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;`;

/** Migration 8's: every document type has its filter token (search/filters.ts TYPE_TOKEN). */
const FTS_INSERT_8 = FTS_INSERT.replace(
  "WHEN 'audio' THEN 6 ELSE 0 END",
  "WHEN 'audio' THEN 6\n        WHEN 'docx' THEN 7 WHEN 'html' THEN 8 WHEN 'epub' THEN 9 WHEN 'slides' THEN 10 WHEN 'sheet' THEN 11 WHEN 'mail' THEN 12 ELSE 0 END",
);
if (FTS_INSERT_8 === FTS_INSERT) throw new Error('migration 8: the type CASE of FTS_INSERT was not found');

/** The last segment of a POSIX or Windows path, in SQL: what follows the last / or \\. */
function basename(col: string): string {
  return `substr(${col}, length(rtrim(${col}, replace(replace(${col}, '/', ''), '\\', ''))) + 1)`;
}

const NAMES_INSERT = `INSERT INTO documents_names(rowid, title, name) VALUES (new.rowid, new.title, ${basename('new.path')})`;

export const MIGRATIONS: readonly Migration[] = [
  {
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
${FTS_INSERT}
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
${FTS_INSERT}
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
`,
  },
  {
    version: 2,
    name: 'chunk generation counter, for cheap reconciliation of the vector store',
    sql: `
-- Every chunk insert and delete bumps the generation. A vector table that was fully synced at the
-- current generation (vectors/binding.ts) needs no diff on open.
INSERT INTO meta(key, value) VALUES ('chunks_generation', '0') ON CONFLICT(key) DO NOTHING;
CREATE TRIGGER chunks_gen_ai AFTER INSERT ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunks_generation';
END;
CREATE TRIGGER chunks_gen_ad AFTER DELETE ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunks_generation';
END;
`,
  },
  {
    version: 3,
    name: 'OCR pages: what needs reading from pixels, and how it went',
    sql: `
-- A page of a scanned PDF (or an image, as page 1) whose text comes from OCR. Pending rows are what
-- the OCR pass still has to do; it runs after the text layer of a batch is indexed and survives
-- interruption. Done rows remember the confidence; kb inspect doc shows them.
CREATE TABLE ocr_pages (
  doc_id     TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  page       INTEGER NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  confidence REAL,
  error      TEXT,
  PRIMARY KEY (doc_id, page)
) STRICT;
CREATE INDEX ocr_pages_pending ON ocr_pages(status) WHERE status = 'pending';
`,
  },
  {
    version: 4,
    name: 'transcripts: audio and video waiting for, or read by, the speech model',
    sql: `
-- One row per audio or video document. waiting: no speech model is installed (kb ls says how to get
-- one); pending: to be read by the next transcription pass (after a batch's text is indexed, and on
-- open); done: segments holds the timed transcript (JSON [{start, end, text}]); failed: error says why.
CREATE TABLE transcripts (
  doc_id   TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  status   TEXT NOT NULL CHECK (status IN ('waiting', 'pending', 'done', 'failed')),
  model    TEXT,
  language TEXT,
  segments TEXT,
  error    TEXT
) STRICT;
CREATE INDEX transcripts_queue ON transcripts(status) WHERE status IN ('waiting', 'pending');
`,
  },
  {
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
  },
  {
    version: 6,
    name: 'documents_names: every document findable by its file name and title',
    sql: `
-- A recording waiting for a speech model, a scan waiting for OCR, a note whose words never say its
-- file name: all are found by name (search/names.ts). Contentless; rowid is the document's rowid.
-- name is the file name without its folders (the folders would match nearly every query).
CREATE VIRTUAL TABLE documents_names USING fts5(
  title, name,
  content = '', contentless_delete = 1,
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO documents_names(rowid, title, name) SELECT rowid, title, ${basename('path')} FROM documents;
CREATE TRIGGER documents_names_ai AFTER INSERT ON documents BEGIN
  ${NAMES_INSERT};
END;
CREATE TRIGGER documents_names_ad AFTER DELETE ON documents BEGIN
  DELETE FROM documents_names WHERE rowid = old.rowid;
END;
CREATE TRIGGER documents_names_au AFTER UPDATE OF title, path ON documents BEGIN
  DELETE FROM documents_names WHERE rowid = old.rowid;
  ${NAMES_INSERT};
END;
`,
  },
  {
    version: 7,
    name: 'ocr_pages.unreadable_with: pages OCR could not read with the languages installed then',
    sql: `
-- Set (to ocr.languages at the time) on a page read with too little confidence to index: its script
-- needs language data that was not installed. When ocr.languages changes, the next OCR pass reads it again.
ALTER TABLE ocr_pages ADD COLUMN unreadable_with TEXT;
`,
  },
  {
    version: 8,
    name: 'type filter tokens for Word, web pages, e-books, slides, sheets and mail; author and date',
    sql: `
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_au;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
${FTS_INSERT_8}
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
${FTS_INSERT_8}
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
-- What the document says of itself (Office core properties, EPUB metadata, a message's sender and date).
ALTER TABLE documents ADD COLUMN author TEXT;
ALTER TABLE documents ADD COLUMN created TEXT;
-- Tables, pages and mail kb read as plain notes before: a folder's next reconcile reads them again
-- (an mtime no file has), now as sheets, pages and mail.
UPDATE documents SET mtime = 0 WHERE type = 'note' AND (lower(path) LIKE '%.csv' OR lower(path) LIKE '%.tsv'
  OR lower(path) LIKE '%.tab' OR lower(path) LIKE '%.html' OR lower(path) LIKE '%.htm' OR lower(path) LIKE '%.xhtml'
  OR lower(path) LIKE '%.shtml' OR lower(path) LIKE '%.eml' OR lower(path) LIKE '%.mbox' OR lower(path) LIKE '%.mbx');
`,
  },
];
