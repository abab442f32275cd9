// The triggers that keep the chunks' indexes in step with them, as they are once every upgrade a
// migration left is done (store/upgrades/): the word index of every chunk, the trigram index of the
// chunks written without spaces, the words with an inside. A chunk's text is read through
// kb_unpack, its heading through kb_heading (store/packed-chunks.ts): packed, or plain. Chunks are
// never updated but for their heading (`UPDATE chunks SET heading = heading` re-indexes a document
// whose tags changed) — and by the packing and records upgrades, whose updates of text, packed and
// heading must index nothing again: a row whose packed bytes changed was repacked, not re-indexed.
// The word index's columns are named in every insert, so these serve its old column order and its
// new one alike (migration 13).

/** A chunk's filter terms (the meta column: migration 8's tokens), from its document `d`. */
export const META_TERMS = `'kbtype' || CASE d.type WHEN 'markdown' THEN 1 WHEN 'note' THEN 2 WHEN 'code' THEN 3 WHEN 'pdf' THEN 4
        WHEN 'image' THEN 5 WHEN 'audio' THEN 6
        WHEN 'docx' THEN 7 WHEN 'html' THEN 8 WHEN 'epub' THEN 9 WHEN 'slides' THEN 10 WHEN 'sheet' THEN 11 WHEN 'mail' THEN 12 ELSE 0 END
      || ' kblang' || hex(coalesce(d.lang, '')) || '0'
      || coalesce((SELECT ' ' || group_concat('kbtag' || dt.tag_id, ' ') FROM document_tags dt WHERE dt.doc_id = d.id), '')`;

/** The word index's row of the chunk `new`, into `table`, when `when` holds. */
function ftsRow(table: string, when = 'TRUE'): string {
  return `
  INSERT INTO ${table}(rowid, title, heading, text, meta)
    SELECT new.rowid, d.title, kb_heading(new.packed, new.heading), kb_unpack(new.packed, new.text), ${META_TERMS}
    FROM documents d WHERE d.id = new.doc_id AND (${when});`;
}

/** Drops the chunks' triggers, whichever set is in place. */
export const DROP_CHUNK_TRIGGERS = 'DROP TRIGGER chunks_ai; DROP TRIGGER chunks_ad; DROP TRIGGER chunks_au;';

/**
 * The triggers; `next`, while an upgrade fills a second word index: that table too, for the chunks
 * `next.when` says it holds (the upgrade's cursor has passed them, or they came after it began).
 */
export function chunkTriggers(next?: { table: string; when: string }): string {
  const nextRow = next ? ftsRow(next.table, next.when) : '';
  const nextDelete = next ? `DELETE FROM ${next.table} WHERE rowid = old.rowid;` : '';
  return `
CREATE TRIGGER chunks_ai AFTER INSERT ON chunks BEGIN
${ftsRow('chunks_fts')}${nextRow}
  INSERT INTO chunks_tri(rowid, text) SELECT new.rowid, new.text WHERE kb_spaceless(new.text);
  INSERT OR IGNORE INTO words(word) SELECT value FROM json_each(kb_compound_words(kb_unpack(new.packed, new.text)));
END;
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  ${nextDelete}
  INSERT INTO chunks_tri(chunks_tri, rowid, text) SELECT 'delete', old.rowid, old.text WHERE kb_spaceless(old.text);
END;
CREATE TRIGGER chunks_au AFTER UPDATE OF heading ON chunks WHEN new.packed IS old.packed BEGIN
  DELETE FROM chunks_fts WHERE rowid = old.rowid;
  ${nextDelete}
  INSERT INTO chunks_tri(chunks_tri, rowid, text) SELECT 'delete', old.rowid, old.text WHERE kb_spaceless(old.text);
${ftsRow('chunks_fts')}${nextRow}
  INSERT INTO chunks_tri(rowid, text) SELECT new.rowid, new.text WHERE kb_spaceless(new.text);
END;
`;
}

export const CHUNK_TRIGGERS = chunkTriggers();
