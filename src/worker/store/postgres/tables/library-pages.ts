// The Library a page at a time on PostgreSQL (see store/library-pages.ts): the same orders, filters
// and counts, the failed and waiting ids handed in as arrays.
import { currentPathView } from '../../../acting.js';
import type { LibraryPort } from '../../port.js';
import type { DocWithFacts, LibrarySort, PageQuery } from '../../rows.js';
import { DOC_COLUMNS, FACTS } from './documents.js';
import { first, rows, type Sql, value } from './sql.js';

const FAILED = 'd.id = ANY ($1::text[])';
const WAITING = 'd.id = ANY ($2::text[])';
/** SQLite's NOCASE folds ASCII letters only; lower() under "C" sorts the same way. */
const TITLE = 'lower(d.title) COLLATE "C"';
const KEYS: Record<LibrarySort, string> = {
  title: TITLE,
  type: 'd.type COLLATE "C"',
  chunks: 'd.chunk_count',
  size: 'd.size',
  status: `CASE WHEN ${FAILED} THEN 0 WHEN ${WAITING} THEN 1 ELSE 2 END`,
  updated: 'd.updated_at',
  path: 'd.path',
};
/** What the orders read of a document, for the documents a filter leaves. */
const SORTED_BY = 'd.id, d.path, d.title, d.type, d.size, d.updated_at, d.chunk_count';
const ONLY = { failed: FAILED, waiting: WAITING, indexed: `NOT ${FAILED} AND NOT ${WAITING}` } as const;
const textIn = (
  path: string,
): string => `(d.title ILIKE $3 ESCAPE '\\' OR ${path} ILIKE $3 ESCAPE '\\' OR d.id IN (SELECT dt.doc_id FROM document_tags dt
  JOIN tags t ON t.id = dt.tag_id WHERE t.name ILIKE $3 ESCAPE '\\'))`;
const TEXT = textIn('d.path');
/**
 * A team's reader or editor filters by the path they see, /<collection>/<path inside it> (acting.ts
 * inPathView): the server's folders match nothing (a found hole: "/tmp/w" told a reader where the
 * server kept their collection, letter by letter).
 */
const TEXT_SHOWN = textIn(
  `(SELECT '/' || v.name || substr(d.path, v.len + 1) FROM unnest($5::text[], $6::int[]) v (name, len) WHERE v.name = d.collection)`,
);

export class PgLibraryPages implements LibraryPort {
  constructor(private readonly sql: Sql) {}

  async page(q: PageQuery): Promise<{ rows: DocWithFacts[]; total: number }> {
    const keyset = q.sort === 'path' && q.after !== null ? (q.down ? 'd.path < $4' : 'd.path > $4') : null;
    // The collections as the user sees them, handed in (the collections table, asked per document
    // under row-level security, cost a filter 110 ms at 13,000 documents; these 16).
    const view = currentPathView();
    const where = [q.text ? (view ? TEXT_SHOWN : TEXT) : null, q.only ? ONLY[q.only] : null].filter((w): w is string => w !== null);
    const pageWhere = keyset ? [...where, keyset] : where;
    const dir = q.down ? 'DESC' : 'ASC';
    const order = q.sort === 'path' ? `d.path ${dir}` : `${KEYS[q.sort]} ${dir}, ${TITLE} ${dir}, d.id ${dir}`;
    const like = q.text ? `%${q.text.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : '';
    // Every statement takes the same six parameters ($1 failed, $2 waiting, $3 the text, $4 after, $5
    // and $6 the user's collections and their folders' lengths), each typed where unused so
    // PostgreSQL can tell what they are.
    const typed =
      '$1::text[] IS NOT NULL AND $2::text[] IS NOT NULL AND $3::text IS NOT NULL AND $4::text IS NOT NULL AND $5::text[] IS NOT NULL AND $6::int[] IS NOT NULL';
    const whereOf = (w: string[]): string => `WHERE ${[typed, ...w].join(' AND ')}`;
    const places = view?.places ?? [];
    const args = [q.failed, q.waiting, like, q.after ?? '', places.map((p) => p.name), places.map((p) => p.root.length)];
    const limits = `LIMIT ${Number(q.limit)} OFFSET ${keyset ? 0 : Number(q.offset)}`;
    const { ids, total } = q.text
      ? // A filter reads every document's title, path and tags once, for the page and the count alike.
        ((await first<{ ids: string[]; total: number }>(
          this.sql,
          `WITH m AS MATERIALIZED (SELECT ${SORTED_BY} FROM documents d ${whereOf(where)}),
             page AS (SELECT p.id, row_number() OVER () AS n FROM (SELECT d.id FROM m d ${keyset ? `WHERE ${keyset}` : ''} ORDER BY ${order} ${limits}) p)
           SELECT (SELECT count(*) FROM m)::int AS total, coalesce((SELECT array_agg(id ORDER BY n) FROM page), '{}') AS ids`,
          args,
        )) ?? { ids: [], total: 0 })
      : {
          ids: (
            await rows<{ id: string }>(this.sql, `SELECT d.id FROM documents d ${whereOf(pageWhere)} ORDER BY ${order} ${limits}`, args)
          ).map((r) => r.id),
          total: (await value<number>(this.sql, `SELECT count(*) FROM documents d ${whereOf(where)}`, args)) ?? 0,
        };
    const facts = await rows<DocWithFacts>(this.sql, `SELECT ${DOC_COLUMNS}, ${FACTS} FROM documents d WHERE d.id = ANY ($1::text[])`, [
      ids,
    ]);
    const byId = new Map(facts.map((d) => [d.id, d]));
    return { rows: ids.map((id) => byId.get(id)).filter((d): d is DocWithFacts => d !== undefined), total };
  }
}
