// What the vector side reads of the chunks: which exist, and each one's text with the document's
// filter columns (type, language, path, tags as |a|b|) for its row in LanceDB.
import type { Db } from './db.js';

export interface FeedRow {
  id: string;
  doc_id: string;
  heading: string;
  text: string;
  type: string;
  lang: string;
  path: string;
  /** `|a|b|`: every tag between bars, so a filter can ask for `%|a|%`. */
  tags: string;
}

export class VectorFeed {
  private readonly idsQ;
  private readonly rowsQ;
  private readonly tagsQ;

  constructor(db: Db) {
    this.idsQ = db.prepare<[], string>('SELECT id FROM chunks').pluck();
    this.rowsQ = db.prepare<[string], FeedRow>(
      `SELECT c.id, c.doc_id, kb_heading(c.packed, c.heading) AS heading, kb_unpack(c.packed, c.text) AS text, d.type, coalesce(d.lang, '') AS lang, d.path,
         '|' || coalesce((SELECT group_concat(t.name, '|') FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = d.id), '') || '|' AS tags
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    );
    this.tagsQ = db.prepare<[string], { tags: string }>(
      `SELECT '|' || coalesce(group_concat(t.name, '|'), '') || '|' AS tags
       FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ?`,
    );
  }

  chunkIds(): Set<string> {
    return new Set(this.idsQ.all());
  }
  rows(chunkIds: string[]): FeedRow[] {
    return this.rowsQ.all(JSON.stringify(chunkIds));
  }
  /** A document's tags in the vector table's form. */
  tagsOf(docId: string): string {
    return this.tagsQ.get(docId)!.tags;
  }
}
