// Migration 6. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
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
INSERT INTO documents_names(rowid, title, name) SELECT rowid, title, substr(path, length(rtrim(path, replace(replace(path, '/', ''), '\\', ''))) + 1) FROM documents;
CREATE TRIGGER documents_names_ai AFTER INSERT ON documents BEGIN
  INSERT INTO documents_names(rowid, title, name) VALUES (new.rowid, new.title, substr(new.path, length(rtrim(new.path, replace(replace(new.path, '/', ''), '\\', ''))) + 1));
END;
CREATE TRIGGER documents_names_ad AFTER DELETE ON documents BEGIN
  DELETE FROM documents_names WHERE rowid = old.rowid;
END;
CREATE TRIGGER documents_names_au AFTER UPDATE OF title, path ON documents BEGIN
  DELETE FROM documents_names WHERE rowid = old.rowid;
  INSERT INTO documents_names(rowid, title, name) VALUES (new.rowid, new.title, substr(new.path, length(rtrim(new.path, replace(replace(new.path, '/', ''), '\\', ''))) + 1));
END;
`,
};
