// Tags and which documents carry them.
import type { Db } from './db.js';
import type { TagsPort, Sync } from './port.js';

export class Tags implements Sync<TagsPort> {
  private readonly insertQ;
  private readonly idQ;
  private readonly linkQ;
  private readonly ofQ;
  private readonly ofManyQ;
  private readonly countsQ;

  constructor(private readonly db: Db) {
    this.insertQ = db.prepare<[string]>('INSERT INTO tags (name) VALUES (?) ON CONFLICT(name) DO NOTHING');
    this.idQ = db.prepare<[string], { id: number }>('SELECT id FROM tags WHERE name = ?');
    this.linkQ = db.prepare<[string, number]>('INSERT OR IGNORE INTO document_tags (doc_id, tag_id) VALUES (?, ?)');
    this.ofQ = db.prepare<[string], { name: string }>(
      'SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ? ORDER BY t.name',
    );
    this.ofManyQ = db.prepare<[string], { doc_id: string; name: string }>(
      `SELECT dt.doc_id AS doc_id, t.name AS name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
       WHERE dt.doc_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`,
    );
    this.countsQ = db.prepare<[], { name: string; documents: number }>(
      // Every link counted in the key's order, less the links of the few documents not indexed: joining
      // every link to its document took half a second at 140,000 documents.
      `WITH every AS (SELECT tag_id, count(*) AS n FROM document_tags GROUP BY tag_id),
            unindexed AS (SELECT dt.tag_id, count(*) AS n FROM documents d JOIN document_tags dt ON dt.doc_id = d.id
              WHERE d.status != 'indexed' GROUP BY dt.tag_id)
       SELECT t.name AS name, every.n - coalesce(unindexed.n, 0) AS documents
       FROM every JOIN tags t ON t.id = every.tag_id LEFT JOIN unindexed ON unindexed.tag_id = every.tag_id
       WHERE every.n - coalesce(unindexed.n, 0) > 0 ORDER BY documents DESC, t.name`,
    );
  }

  /** A tag's id, or undefined when no document ever carried it. */
  id(name: string): number | undefined {
    return this.idQ.get(name)?.id;
  }

  /** Every tag of an indexed document with how many carry it, the most used first. */
  counts(): { name: string; documents: number }[] {
    return this.countsQ.all();
  }

  /** Links tags (normalised names) to a document; returns how many were new. */
  add(docId: string, tags: string[]): number {
    let added = 0;
    for (const t of tags) {
      this.insertQ.run(t);
      added += this.linkQ.run(docId, this.idQ.get(t)!.id).changes;
    }
    return added;
  }
  of(docId: string): string[] {
    return this.ofQ.all(docId).map((r) => r.name);
  }
  ofMany(docIds: readonly string[]): Map<string, string[]> {
    return groupTags(this.ofManyQ.all(JSON.stringify(docIds)));
  }
  /** The documents that already carry every one of these tags. */
  docsWithAll(tags: string[]): Set<string> {
    if (tags.length === 0) return new Set();
    const rows = this.db
      .prepare<string[], { doc_id: string }>(
        `SELECT dt.doc_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
         WHERE t.name IN (${tags.map(() => '?').join(',')}) GROUP BY dt.doc_id HAVING count(*) = ${tags.length}`,
      )
      .all(...tags);
    return new Set(rows.map((r) => r.doc_id));
  }
}

/** Rows of (document, tag), in tag order, as each document's tags. */
export function groupTags(rows: readonly { doc_id: string; name: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of rows) {
    const tags = out.get(r.doc_id);
    if (tags) tags.push(r.name);
    else out.set(r.doc_id, [r.name]);
  }
  return out;
}
