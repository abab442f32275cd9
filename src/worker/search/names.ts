// Documents found by their file name or title (documents_names, migration 6), for the documents whose
// text does not say it: a recording waiting for a speech model, a scan waiting for OCR, `jfk.mp3` when
// nobody says "jfk" in it. Search adds them beside the passages (search.ts, withNames).
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/db.js';
import { type DocWithFacts, Documents } from '../store/documents.js';
import { type Filters, filterSql } from './filters.js';
import { type ParsedQuery, ftsString } from './query.js';

export interface NameMatch {
  doc: DocWithFacts;
  /** The document's first chunk, to open it at its start; null when it has none yet. */
  firstChunk: number | null;
  /** The query is the file name (with or without its extension) or the title, as typed. */
  exact: boolean;
}

/** Every word must be in the name or title: a name match is a claim that this is the file meant. */
export function namesExpression(q: ParsedQuery): string | null {
  if (q.kind !== 'terms') return null;
  const parts = [
    ...q.terms.filter((t) => !t.alternative).map((t) => (t.prefix ? `${ftsString(t.text)}*` : ftsString(t.text))),
    ...q.phrases.map((p) => ftsString(p.join(' '))),
    ...q.cjk.map(ftsString),
  ];
  return parts.length > 0 ? parts.join(' AND ') : null;
}

function bare(s: string): string {
  return s.trim().toLowerCase().normalize('NFKC');
}

export class NameSearcher {
  private readonly docs: Documents;
  private readonly stmts = new Map<string, Statement<unknown[], { id: string }>>();
  private readonly firstChunkQ;

  constructor(private readonly db: Db) {
    this.docs = new Documents(db);
    this.firstChunkQ = db.prepare<[string], { rowid: number }>('SELECT rowid FROM chunks WHERE doc_id = ? ORDER BY ordinal LIMIT 1');
  }

  find(query: string, q: ParsedQuery, filters: Filters, limit: number): NameMatch[] {
    const expr = namesExpression(q);
    if (!expr) return [];
    const f = filterSql(filters);
    const sql = `SELECT d.id FROM documents_names n JOIN documents d ON d.rowid = n.rowid
      WHERE documents_names MATCH ? ${f.where} ORDER BY n.rank LIMIT ?`;
    let stmt = this.stmts.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[], { id: string }>(sql);
      this.stmts.set(sql, stmt);
    }
    let rows: { id: string }[];
    try {
      rows = stmt.all(expr, ...f.params, limit);
    } catch {
      // A name index from before migration 6 cannot exist (migrations run on open); a malformed
      // expression is our bug, and must not cost the user the passages: no names, then.
      return [];
    }
    const typed = bare(query);
    return rows.flatMap(({ id }) => {
      const doc = this.docs.withFacts(id);
      if (!doc) return [];
      const name = bare(doc.path.split(/[\\/]/).pop() ?? doc.path);
      const exact = typed === name || typed === name.replace(/\.[^.]+$/, '') || typed === bare(doc.title);
      return [{ doc, firstChunk: this.firstChunkQ.get(id)?.rowid ?? null, exact }];
    });
  }
}
