// Migration 11. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 11,
  name: 'a trigram index of the chunks written without spaces only, and of the words with an inside (identifiers, compounds)',
  sql: `
-- Words whose inside a search may be after (store/index-functions.ts): a trigram index of them is a
-- few MB where one of every chunk's text was two thirds of the text's size. Never deleted: a word
-- no chunk holds any more costs one wasted lookup.
CREATE TABLE words (
  id   INTEGER PRIMARY KEY,
  word TEXT NOT NULL UNIQUE
) STRICT;
CREATE VIRTUAL TABLE words_tri USING fts5(word, content = 'words', content_rowid = 'id', tokenize = 'trigram', detail = 'none');
CREATE TRIGGER words_ai AFTER INSERT ON words BEGIN
  INSERT INTO words_tri(rowid, word) VALUES (new.id, new.word);
END;

-- The trigram index of the chunks in scripts without spaces, filled by the upgrade (a batch at a
-- time, resumable: meta 'substrings_upgrade' says how far; store/upgrades/substrings.ts) while
-- chunks_tri still answers; the upgrade's last step puts it in chunks_tri's place. Until then the
-- triggers keep both, and chunks_tri_next only for rows the upgrade has passed or that came after.
CREATE VIRTUAL TABLE chunks_tri_next USING fts5(text, content = 'chunks', content_rowid = 'rowid', tokenize = 'trigram', detail = 'none');
INSERT INTO meta(key, value) SELECT 'substrings_upgrade', json_object('cursor', 0, 'end', coalesce(max(rowid), 0)) FROM chunks;

DROP TRIGGER chunks_ai;
DROP TRIGGER chunks_ad;
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
  INSERT INTO chunks_tri_next(rowid, text) SELECT new.rowid, new.text WHERE kb_spaceless(new.text)
    AND (new.rowid <= (SELECT value ->> 'cursor' FROM meta WHERE key = 'substrings_upgrade')
      OR new.rowid > (SELECT value ->> 'end' FROM meta WHERE key = 'substrings_upgrade'));
  INSERT OR IGNORE INTO words(word) SELECT value FROM json_each(kb_compound_words(new.text));
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO chunks_tri_next(chunks_tri_next, rowid, text) SELECT 'delete', old.rowid, old.text WHERE kb_spaceless(old.text)
    AND (old.rowid <= (SELECT value ->> 'cursor' FROM meta WHERE key = 'substrings_upgrade')
      OR old.rowid > (SELECT value ->> 'end' FROM meta WHERE key = 'substrings_upgrade'));
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF heading, text ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  INSERT INTO chunks_tri(chunks_tri, rowid, text) VALUES ('delete', old.rowid, old.text);
  INSERT INTO chunks_tri_next(chunks_tri_next, rowid, text) SELECT 'delete', old.rowid, old.text WHERE kb_spaceless(old.text)
    AND (old.rowid <= (SELECT value ->> 'cursor' FROM meta WHERE key = 'substrings_upgrade')
      OR old.rowid > (SELECT value ->> 'end' FROM meta WHERE key = 'substrings_upgrade'));
INSERT INTO chunks_fts(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, new.heading, new.text,
      'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6
        WHEN 'docx' THEN 7 WHEN 'html' THEN 8 WHEN 'epub' THEN 9 WHEN 'slides' THEN 10 WHEN 'sheet' THEN 11 WHEN 'mail' THEN 12 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')
    FROM documents d WHERE d.id = new.doc_id;
  INSERT INTO chunks_tri(rowid, text) VALUES (new.rowid, new.text);
  INSERT INTO chunks_tri_next(rowid, text) SELECT new.rowid, new.text WHERE kb_spaceless(new.text)
    AND (new.rowid <= (SELECT value ->> 'cursor' FROM meta WHERE key = 'substrings_upgrade')
      OR new.rowid > (SELECT value ->> 'end' FROM meta WHERE key = 'substrings_upgrade'));
  INSERT OR IGNORE INTO words(word) SELECT value FROM json_each(kb_compound_words(new.text));
END;
`,
};
