// Migration 8. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 8,
  name: 'type filter tokens for Word, web pages, e-books, slides, sheets and mail; author and date',
  sql: `
DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_au;
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6
        WHEN 'docx' THEN 7 WHEN 'html' THEN 8 WHEN 'epub' THEN 9 WHEN 'slides' THEN 10 WHEN 'sheet' THEN 11 WHEN 'mail' THEN 12 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6
        WHEN 'docx' THEN 7 WHEN 'html' THEN 8 WHEN 'epub' THEN 9 WHEN 'slides' THEN 10 WHEN 'sheet' THEN 11 WHEN 'mail' THEN 12 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;
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
};
