// What a search reads to turn ranked chunks into hits, on PostgreSQL (see store/hits.ts).
import type { HitsPort } from '../../port.js';
import type { HitRow } from '../../rows.js';
import { rows, type Sql } from './sql.js';

export class PgHits implements HitsPort {
  constructor(private readonly sql: Sql) {}

  /** One statement: a search pays a round trip (and under row-level security, its policies) per statement. */
  async rows(rowids: number[]): Promise<Map<number, HitRow>> {
    const r = await rows<HitRow>(
      this.sql,
      `SELECT c.rowid, c.id, c.doc_id, c.ordinal, c.text, c.heading, c.anchor, d.path, d.title, d.type, d.original,
         ARRAY(SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = d.id ORDER BY t.name COLLATE "C") AS tags,
         (SELECT count(*)::int FROM chunks x WHERE x.doc_id = d.id) AS total_chunks
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
