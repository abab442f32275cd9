// Documents by their file name, title or tag, on PostgreSQL (see store/names.ts): documents.names
// holds the title's words weighted A and the file name's weighted B, so a tsquery's lexemes restricted
// to one weight ask one of them.
import type { Filters } from '../../doc-filter.js';
import type { NamesPort } from '../../port.js';
import type { NamedDoc, NameWords } from '../../rows.js';
import { indexForm, WORD_TOKEN } from '../../../words.js';
import { type MatchWord, type Part, tsquery } from '../tsquery.js';
import { filterWhere } from '../word-index.js';
import { rows, type Sql, value } from './sql.js';

/** Every part of a name query as a tsquery over one weight of documents.names; null when empty. */
function nameQuery(field: 'name' | 'title', q: NameWords): string | null {
  const only = field === 'title' ? 'A' : 'B';
  const word = (text: string, prefix: boolean): MatchWord => ({
    form: prefix ? indexForm(text).folded : indexForm(text).stem,
    prefix,
    only,
  });
  const parts: Part[] = [];
  for (const w of q.words) {
    // A word may hold several of the index's words ("report-2024" is two): each must be there.
    const pieces = [...w.text.matchAll(WORD_TOKEN)].map((m) => m[0]);
    pieces.forEach((p, i) => parts.push(word(p, w.prefix && i === pieces.length - 1)));
  }
  for (const p of q.phrases) parts.push(p.flatMap((w) => [...w.matchAll(WORD_TOKEN)].map((m) => word(m[0], false))));
  return parts.length === 0 ? null : tsquery({ every: parts });
}

export class PgNames implements NamesPort {
  constructor(private readonly sql: Sql) {}

  async matching(field: 'name' | 'title', q: NameWords, filters: Filters, limit: number, among?: string[]): Promise<NamedDoc[]> {
    const match = nameQuery(field, q);
    if (!match) return [];
    const f = filterWhere(filters, among ?? null, 3);
    return rows<NamedDoc>(this.sql, `SELECT d.id, d.path, d.title FROM documents d WHERE d.names @@ $1::tsquery AND ${f.sql} LIMIT $2`, [
      match,
      limit,
      ...f.values,
    ]);
  }
  tagged(tag: string, filters: Filters, limit: number): Promise<NamedDoc[]> {
    const f = filterWhere(filters, null, 3);
    return rows<NamedDoc>(
      this.sql,
      `SELECT d.id, d.path, d.title FROM tags t JOIN document_tags dt ON dt.tag_id = t.id JOIN documents d ON d.id = dt.doc_id
       WHERE t.name = $1 AND ${f.sql} LIMIT $2`,
      [tag, limit, ...f.values],
    );
  }
  async firstChunk(docId: string): Promise<number | null> {
    return (await value<number>(this.sql, 'SELECT rowid FROM chunks WHERE doc_id = $1 ORDER BY ordinal LIMIT 1', [docId])) ?? null;
  }
  async waiting(): Promise<string[]> {
    const r = await rows<{ id: string }>(
      this.sql,
      `SELECT d.id FROM documents d
       WHERE d.id IN (SELECT doc_id FROM transcripts WHERE status <> 'done' UNION SELECT doc_id FROM ocr_pages WHERE status <> 'done')
         AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)`,
    );
    return r.map((x) => x.id);
  }
}
