// Documents by their file name, title or tag (documents_names, migration 6): the statements the
// search's name lookup (search/names.ts) asks, each prepared once.
import type { Db } from './db.js';
import { filterSql, type Filters } from './doc-filter.js';
import type { NamesPort, Sync } from './port.js';
import type { NamedDoc, NameWords } from './rows.js';
import { StatementCache } from './statement-cache.js';

export type { NamedDoc };

/** Double-quoted FTS5 string: the only escape is doubling the quote. */
const quoted = (s: string): string => `"${s.replace(/"/g, '""')}"`;

/** Every part of a name query, as an FTS5 expression over one column of documents_names. */
function expression(field: 'name' | 'title', q: NameWords): string | null {
  const parts = [...q.words.map((w) => (w.prefix ? `${quoted(w.text)}*` : quoted(w.text))), ...q.phrases.map((p) => quoted(p.join(' ')))];
  return parts.length > 0 ? `${field} : (${parts.join(' AND ')})` : null;
}

const NAMES = 'SELECT d.id, d.path, d.title FROM documents_names n JOIN documents d ON d.rowid = n.rowid WHERE documents_names MATCH ?';
const TAGGED =
  'SELECT d.id, d.path, d.title FROM tags t JOIN document_tags dt ON dt.tag_id = t.id JOIN documents d ON d.id = dt.doc_id WHERE t.name = ?';

export class NameIndex implements Sync<NamesPort> {
  private readonly stmts: StatementCache;
  private readonly firstChunkQ;
  private readonly chunklessQ;

  constructor(db: Db) {
    this.stmts = new StatementCache(db);
    this.firstChunkQ = db.prepare<[string], { rowid: number }>('SELECT rowid FROM chunks WHERE doc_id = ? ORDER BY ordinal LIMIT 1');
    // Documents with nothing to search yet are those still waiting for (or failed by) a transcript or OCR.
    this.chunklessQ = db.prepare<[], { id: string }>(`SELECT d.id FROM documents d
      WHERE d.id IN (SELECT doc_id FROM transcripts WHERE status <> 'done' UNION SELECT doc_id FROM ocr_pages WHERE status <> 'done')
        AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)`);
  }

  private run(sql: string, params: unknown[]): NamedDoc[] {
    const stmt = this.stmts.get(sql);
    try {
      return stmt.all(...params) as NamedDoc[];
    } catch {
      // A malformed expression is kb's bug, and must not cost the user the passages: no names, then.
      return [];
    }
  }

  matching(field: 'name' | 'title', q: NameWords, filters: Filters, limit: number, among?: string[]): NamedDoc[] {
    const match = expression(field, q);
    if (!match) return [];
    const f = filterSql(filters);
    if (!among) return this.run(`${NAMES} ${f.where} LIMIT ?`, [match, ...f.params, limit]);
    return this.run(`${NAMES} ${f.where} AND d.id IN (SELECT value FROM json_each(?)) LIMIT ?`, [
      match,
      ...f.params,
      JSON.stringify(among),
      limit,
    ]);
  }

  /** Documents carrying this tag, within the filters. */
  tagged(tag: string, filters: Filters, limit: number): NamedDoc[] {
    const f = filterSql(filters);
    return this.run(`${TAGGED} ${f.where} LIMIT ?`, [tag, ...f.params, limit]);
  }

  /** A document's first chunk (to open it at its start), or null when it has none yet. */
  firstChunk(docId: string): number | null {
    return this.firstChunkQ.get(docId)?.rowid ?? null;
  }

  /** The documents with no passages yet: audio waiting for a transcript, scans for OCR. */
  waiting(): string[] {
    return this.chunklessQ.all().map((r) => r.id);
  }
}
