// The Library's list a page at a time: the documents a filter and a status leave, in the order the
// person chose, sorted and counted by SQLite so that a library of 250,000 documents opens as fast as
// one of 100. What makes a document failed or waiting is doc-state.ts's to say: the caller hands in
// those (few) ids, and they sort and filter as sets.
import type { Db } from './db.js';
import { type DocWithFacts, FACTS } from './documents.js';
import { StatementCache } from './statement-cache.js';
import type { LibrarySort, PageQuery } from './rows.js';
import type { LibraryPort, Sync } from './port.js';

export type { LibrarySort, PageQuery } from './rows.js';

const FAILED = 'd.id IN (SELECT value FROM json_each(@failed))';
const WAITING = 'd.id IN (SELECT value FROM json_each(@waiting))';
const KEYS: Record<LibrarySort, string> = {
  title: 'd.title COLLATE NOCASE',
  type: 'd.type',
  chunks: '(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id)',
  size: 'd.size',
  // Failed first, then waiting: those are what a person looks for.
  status: `CASE WHEN ${FAILED} THEN 0 WHEN ${WAITING} THEN 1 ELSE 2 END`,
  updated: 'd.updated_at',
  path: 'd.path',
};
const ONLY = { failed: FAILED, waiting: WAITING, indexed: `NOT ${FAILED} AND NOT ${WAITING}` } as const;
// The documents a tag matches are asked once (the tags are few), not per document.
const TEXT = `(d.title LIKE @like ESCAPE '\\' OR d.path LIKE @like ESCAPE '\\' OR d.id IN (SELECT dt.doc_id FROM document_tags dt
  JOIN tags t ON t.id = dt.tag_id WHERE t.name LIKE @like ESCAPE '\\'))`;

export class LibraryPages implements Sync<LibraryPort> {
  private readonly stmts: StatementCache;
  private readonly factsQ;

  constructor(db: Db) {
    this.stmts = new StatementCache(db);
    this.factsQ = db.prepare<[string], DocWithFacts>(
      `SELECT d.*, ${FACTS} FROM documents d WHERE d.id IN (SELECT value FROM json_each(?))`,
    );
  }

  /** The page's documents with their facts, in order, and how many documents the query leaves. */
  page(q: PageQuery): { rows: DocWithFacts[]; total: number } {
    const keyset = q.sort === 'path' && q.after !== null ? (q.down ? 'd.path < @after' : 'd.path > @after') : null;
    const where = [q.text ? TEXT : null, q.only ? ONLY[q.only] : null].filter((w): w is string => w !== null);
    const pageWhere = keyset ? [...where, keyset] : where;
    const dir = q.down ? 'DESC' : 'ASC';
    // Ties fall back to the name, so the order never looks random; the id makes it total. Paths are
    // unique: alone, they walk their own index.
    const order = q.sort === 'path' ? `d.path ${dir}` : `${KEYS[q.sort]} ${dir}, d.title COLLATE NOCASE ${dir}, d.id ${dir}`;
    const args = {
      failed: JSON.stringify(q.failed),
      waiting: JSON.stringify(q.waiting),
      like: q.text ? `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : '',
      limit: q.limit,
      offset: keyset ? 0 : q.offset,
      after: q.after ?? '',
    };
    const used = (sql: string): Record<string, unknown> => Object.fromEntries(Object.entries(args).filter(([k]) => sql.includes(`@${k}`)));
    const whereOf = (w: string[]): string => (w.length > 0 ? `WHERE ${w.join(' AND ')}` : '');
    const idsSql = `SELECT d.id FROM documents d ${whereOf(pageWhere)} ORDER BY ${order} LIMIT @limit OFFSET @offset`;
    const countSql = `SELECT count(*) FROM documents d ${whereOf(where)}`;
    const ids = this.stmts.get(idsSql).pluck().all(used(idsSql)) as string[];
    const total = this.stmts.get(countSql).pluck().get(used(countSql)) as number;
    const byId = new Map(this.factsQ.all(JSON.stringify(ids)).map((d) => [d.id, d]));
    return { rows: ids.map((id) => byId.get(id)).filter((d): d is DocWithFacts => d !== undefined), total };
  }
}
