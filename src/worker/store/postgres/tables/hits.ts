// What a search reads to turn ranked chunks into hits, on PostgreSQL (see store/hits.ts).
import type { HitsPort } from '../../port.js';
import type { HitRow } from '../../rows.js';
import { rows, type Sql } from './sql.js';

export class PgHits implements HitsPort {
  constructor(private readonly sql: Sql) {}

  async rows(rowids: number[]): Promise<Map<number, HitRow>> {
    const r = await rows<HitRow>(
      this.sql,
      `SELECT c.rowid, c.id, c.doc_id, c.ordinal, c.text, c.heading, c.anchor, d.path, d.title, d.type, d.original
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid = ANY ($1::bigint[])`,
      [rowids],
    );
    return new Map(r.map((x) => [x.rowid, x]));
  }
  async tagsOf(docIds: string[]): Promise<Map<string, string[]>> {
    const tags = new Map<string, string[]>();
    const r = await rows<{ doc_id: string; name: string }>(
      this.sql,
      `SELECT dt.doc_id, t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
       WHERE dt.doc_id = ANY ($1::text[]) ORDER BY t.name COLLATE "C"`,
      [docIds],
    );
    for (const t of r) tags.set(t.doc_id, [...(tags.get(t.doc_id) ?? []), t.name]);
    return tags;
  }
  async chunkCounts(docIds: string[]): Promise<Map<string, number>> {
    const r = await rows<{ doc_id: string; n: number }>(
      this.sql,
      'SELECT doc_id, count(*) AS n FROM chunks WHERE doc_id = ANY ($1::text[]) GROUP BY doc_id',
      [docIds],
    );
    return new Map(r.map((x) => [x.doc_id, x.n]));
  }
  async rowidsOf(chunkIds: string[]): Promise<Map<string, number>> {
    const r = await rows<{ rowid: number; id: string }>(this.sql, 'SELECT rowid, id FROM chunks WHERE id = ANY ($1::text[])', [chunkIds]);
    return new Map(r.map((x) => [x.id, x.rowid]));
  }
  async idsOf(rowids: number[]): Promise<Map<number, string>> {
    const r = await rows<{ rowid: number; id: string }>(this.sql, 'SELECT rowid, id FROM chunks WHERE rowid = ANY ($1::bigint[])', [
      rowids,
    ]);
    return new Map(r.map((x) => [x.rowid, x.id]));
  }
}
