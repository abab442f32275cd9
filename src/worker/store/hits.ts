// What search reads to turn ranked chunk rowids into hits: the chunks with their documents, the
// documents' tags and chunk counts, and chunk ids ↔ rowids (the vector side knows ids, FTS5 rowids).
// One query per kind of fact, never one per hit.
import type { Db } from './db.js';
import type { HitsPort, Sync } from './port.js';
import type { HitRow } from './rows.js';

export type { HitRow };

export class HitReader implements Sync<HitsPort> {
  private readonly rowsQ;
  private readonly tagsQ;
  private readonly totalsQ;
  private readonly rowidsQ;
  private readonly idsQ;

  constructor(db: Db) {
    this.rowsQ = db.prepare<
      [string],
      Omit<HitRow, 'tags' | 'total_chunks'>
    >(`SELECT c.rowid, c.id, c.doc_id, c.ordinal, kb_unpack(c.packed, c.text) AS text,
        kb_heading(c.packed, c.heading) AS heading, kb_anchor(c.packed, c.anchor) AS anchor,
        d.path, d.title, d.type, d.original
      FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid IN (SELECT value FROM json_each(?))`);
    this.tagsQ = db.prepare<
      [string],
      { doc_id: string; name: string }
    >(`SELECT dt.doc_id, t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
      WHERE dt.doc_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`);
    this.totalsQ = db.prepare<[string], { doc_id: string; n: number }>(`SELECT doc_id, count(*) AS n FROM chunks
      WHERE doc_id IN (SELECT value FROM json_each(?)) GROUP BY doc_id`);
    this.rowidsQ = db.prepare<[string], { rowid: number; id: string }>(
      'SELECT rowid, id FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.idsQ = db.prepare<[string], { rowid: number; id: string }>(
      'SELECT rowid, id FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))',
    );
  }

  /** The chunks (with their documents, tags and chunk counts) at these rowids, by rowid. */
  rows(rowids: number[]): Map<number, HitRow> {
    const found = this.rowsQ.all(JSON.stringify(rowids));
    const docIds = [...new Set(found.map((r) => r.doc_id))];
    const tags = this.tagsOf(docIds);
    const totals = this.chunkCounts(docIds);
    return new Map(found.map((r) => [r.rowid, { ...r, tags: tags.get(r.doc_id) ?? [], total_chunks: totals.get(r.doc_id) ?? 1 }]));
  }
  /** Each document's tags, in name order. */
  tagsOf(docIds: string[]): Map<string, string[]> {
    const tags = new Map<string, string[]>();
    for (const t of this.tagsQ.all(JSON.stringify(docIds))) {
      const list = tags.get(t.doc_id) ?? [];
      list.push(t.name);
      tags.set(t.doc_id, list);
    }
    return tags;
  }
  private chunkCounts(docIds: string[]): Map<string, number> {
    return new Map(this.totalsQ.all(JSON.stringify(docIds)).map((r) => [r.doc_id, r.n]));
  }
  rowidsOf(chunkIds: string[]): Map<string, number> {
    return new Map(this.rowidsQ.all(JSON.stringify(chunkIds)).map((r) => [r.id, r.rowid]));
  }
  idsOf(rowids: number[]): Map<number, string> {
    return new Map(this.idsQ.all(JSON.stringify(rowids)).map((r) => [r.rowid, r.id]));
  }
}
