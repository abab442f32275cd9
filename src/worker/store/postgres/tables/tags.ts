// Tags on PostgreSQL (see store/tags.ts).
import type { TagsPort } from '../../port.js';
import { groupTags } from '../../tags.js';
import { rows, type Sql, value } from './sql.js';

export class PgTags implements TagsPort {
  constructor(private readonly sql: Sql) {}

  id(name: string): Promise<number | undefined> {
    return value<number>(this.sql, 'SELECT id FROM tags WHERE name = $1', [name]);
  }
  counts(): Promise<{ name: string; documents: number }[]> {
    return rows<{ name: string; documents: number }>(
      this.sql,
      `SELECT t.name, count(*) AS documents FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
         JOIN documents d ON d.id = dt.doc_id AND d.status = 'indexed'
       GROUP BY t.name ORDER BY documents DESC, t.name COLLATE "C"`,
    );
  }
  async add(docId: string, tags: string[]): Promise<number> {
    if (tags.length === 0) return 0;
    // In name order, so two writers tagging at once take the tags' rows in the same order.
    const sorted = [...new Set(tags)].sort();
    await this.sql.query('INSERT INTO tags (name) SELECT unnest($1::text[]) ORDER BY 1 ON CONFLICT (name) DO NOTHING', [sorted]);
    const r = await this.sql.query(
      `INSERT INTO document_tags (doc_id, tag_id) SELECT $1, id FROM tags WHERE name = ANY ($2::text[])
       ON CONFLICT DO NOTHING`,
      [docId, sorted],
    );
    return r.rowCount ?? 0;
  }
  async ofMany(docIds: readonly string[]): Promise<Map<string, string[]>> {
    return groupTags(
      await rows<{ doc_id: string; name: string }>(
        this.sql,
        'SELECT dt.doc_id, t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ANY ($1::text[]) ORDER BY t.name COLLATE "C"',
        [docIds],
      ),
    );
  }
  async of(docId: string): Promise<string[]> {
    return (
      await rows<{ name: string }>(
        this.sql,
        'SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = $1 ORDER BY t.name COLLATE "C"',
        [docId],
      )
    ).map((r) => r.name);
  }
  async docsWithAll(tags: string[]): Promise<Set<string>> {
    if (tags.length === 0) return new Set();
    const r = await rows<{ doc_id: string }>(
      this.sql,
      `SELECT dt.doc_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
       WHERE t.name = ANY ($1::text[]) GROUP BY dt.doc_id HAVING count(*) = $2`,
      [[...new Set(tags)], new Set(tags).size],
    );
    return new Set(r.map((x) => x.doc_id));
  }
}
