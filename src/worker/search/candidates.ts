// Candidate generation on the FTS5 word index: the MATCH expression with the filters folded in,
// FTS5's weighted bm25 to order candidates, counts of all matches, and chunk texts fetched in one
// query. Every SQL statement of lexical search is here; statements are prepared once and kept.
import type { Statement } from 'better-sqlite3';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Db } from '../store/db.js';
import { type Filters, filterFts, pathFilterSql, pathMatcher } from './filters.js';
import { IndexStats } from './index-stats.js';

export interface Candidate {
  rowid: number;
  raw: number;
}

export interface ChunkText {
  title: string;
  heading: string;
  text: string;
}

export class Candidates {
  private readonly stmts = new Map<string, Statement>();
  /** Cleared with the index statistics (see LexicalSearcher). */
  readonly pathCache = new Map<string, string[]>();
  readonly stats: IndexStats;

  constructor(
    readonly db: Db,
    private readonly config: Config,
  ) {
    this.stats = new IndexStats(db, config, (sql) => this.prep(sql));
  }

  prep(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Ids of the indexed documents whose path matches a glob, cached until the next write. */
  pathDocIds = (glob: string): string[] => {
    let ids = this.pathCache.get(glob);
    if (!ids) {
      const m = pathMatcher(glob);
      const rows = this.prep("SELECT id, path FROM documents WHERE status = 'indexed'").all() as { id: string; path: string }[];
      ids = rows.filter((r) => m(r.path)).map((r) => r.id);
      this.pathCache.set(glob, ids);
    }
    return ids;
  };

  /** Title, heading and text of many chunks in one query, in the order asked. */
  texts(rowids: number[]): ChunkText[] {
    if (rowids.length === 0) return [];
    const rows = this.prep(
      `SELECT c.rowid AS rowid, d.title AS title, c.heading AS heading, c.text AS text
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(rowids)) as (ChunkText & { rowid: number })[];
    const byRow = new Map(rows.map((r) => [r.rowid, r]));
    return rowids.map((r) => byRow.get(r) ?? { title: '', heading: '', text: '' });
  }

  private weightsSql(): string {
    const w = this.config.search.weights;
    return `${w.title}, ${w.heading}, ${w.body}, 0`; // meta (filter tokens) never scores
  }

  /** The MATCH expression with the type/lang/tag filters folded in; null when no chunk can match. */
  private withFilters(expr: string, filters: Filters): string | null {
    const ff = filterFts(this.db, filters);
    if (ff.impossible) return null;
    return ff.clause ? `(${expr}) AND ${ff.clause}` : expr;
  }

  fetch(expr: string, filters: Filters, limit: number): Candidate[] {
    const match = this.withFilters(expr, filters);
    if (match === null) return [];
    const p = pathFilterSql(filters, this.pathDocIds);
    // FTS first, always: a path glob is checked only on rows the index already matched.
    const sql = p.active
      ? `SELECT f.rowid AS rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw
         FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
         WHERE chunks_fts MATCH ? ${p.where} ORDER BY raw, f.rowid LIMIT ?`
      : `SELECT rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw FROM chunks_fts
         WHERE chunks_fts MATCH ? ORDER BY raw, rowid LIMIT ?`;
    try {
      return this.prep(sql).all(match, ...p.params, limit) as Candidate[];
    } catch (e) {
      throw new KbError('QUERY_INVALID', `the search expression is not valid: ${(e as Error).message.replace(/^fts5: /, '')}`);
    }
  }

  count(expr: string, filters: Filters): number {
    const match = this.withFilters(expr, filters);
    if (match === null) return 0;
    const p = pathFilterSql(filters, this.pathDocIds);
    const sql = p.active
      ? `SELECT count(*) AS n FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
         WHERE chunks_fts MATCH ? ${p.where}`
      : 'SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?';
    return (this.prep(sql).get(match, ...p.params) as { n: number }).n;
  }

  /** The share of chunks that pass the filters (the most selective one), for estimates. */
  filterShare(filters: Filters): number {
    const n = this.stats.n();
    let share = 1;
    const tokens = filterFts(this.db, filters).clause?.match(/kb\w+/g) ?? [];
    for (const [, f] of this.stats.docFreq(tokens)) share = Math.min(share, f / n);
    if (tokens.length > 0 && this.stats.docFreq(tokens).size < tokens.length) share = 0;
    if (filters.path) {
      const docs = (this.prep("SELECT count(*) AS n FROM documents WHERE status = 'indexed'").get() as { n: number }).n;
      share = Math.min(share, docs > 0 ? this.pathDocIds(filters.path).length / docs : 0);
    }
    return share;
  }
}
