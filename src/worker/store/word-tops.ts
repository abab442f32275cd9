// The statements of the heavy units' tops (migration 10; search/tops.ts says what they hold): one
// unit's entries for a search, all of them for an update, the vocabulary and the chunks an update
// reads, and its state in meta.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { filterSql, type Filters } from './doc-filter.js';
import { readMeta, writeMeta } from './meta.js';
import { StatementCache } from './statement-cache.js';

export interface StoredTop {
  unit: string;
  /** Chunks the unit was seen in while the entries were kept. */
  matches: number;
  entries: Buffer;
}

export interface TopsChunk {
  rowid: number;
  title: string;
  heading: string;
  text: string;
}

const STATE_KEY = 'word_tops';

export class WordTopsTable {
  private readonly stmts: StatementCache;

  constructor(readonly db: Db) {
    this.stmts = new StatementCache(db);
  }

  private prep(sql: string): Statement {
    return this.stmts.get(sql);
  }

  /** The state an update left (search/tops.ts reads and writes it as JSON), or null before the first. */
  state(): string | null {
    return readMeta(this.db, STATE_KEY);
  }

  get(unit: string): StoredTop | null {
    return (this.prep('SELECT unit, matches, entries FROM word_tops WHERE unit = ?').get(unit) as StoredTop | undefined) ?? null;
  }

  units(): number {
    return (this.prep('SELECT count(*) AS n FROM word_tops').get() as { n: number }).n;
  }

  all(): StoredTop[] {
    return this.prep('SELECT unit, matches, entries FROM word_tops').all() as StoredTop[];
  }

  /** Every index term with the number of chunks holding it (fts5vocab walks the whole index). */
  vocabulary(): Iterable<{ term: string; doc: number }> {
    return this.prep('SELECT term, doc FROM chunks_vocab ORDER BY term').iterate() as Iterable<{ term: string; doc: number }>;
  }

  /** The chunks after this rowid, in rowid order, with their document's title. */
  chunksAfter(rowid: number): Iterable<TopsChunk> {
    return this.prep(
      `SELECT c.rowid AS rowid, d.title AS title, kb_heading(c.packed, c.heading) AS heading, kb_unpack(c.packed, c.text) AS text
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid > ? ORDER BY c.rowid`,
    ).iterate(rowid) as Iterable<TopsChunk>;
  }

  lastRowid(): number {
    return (this.prep('SELECT max(rowid) AS hi FROM chunks').get() as { hi: number | null }).hi ?? 0;
  }

  /** Which of these chunks still exist. */
  existing(rowids: number[]): Set<number> {
    if (rowids.length === 0) return new Set();
    const rows = this.prep('SELECT rowid FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))').all(JSON.stringify(rowids)) as {
      rowid: number;
    }[];
    return new Set(rows.map((r) => r.rowid));
  }

  /** Which of these chunks exist in a searchable document that passes the filters. */
  passing(rowids: number[], filters: Filters): Set<number> {
    if (rowids.length === 0) return new Set();
    const f = filterSql(filters);
    const rows = this.prep(
      `SELECT c.rowid AS rowid FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.rowid IN (SELECT value FROM json_each(?)) ${f.where}`,
    ).all(JSON.stringify(rowids), ...f.params) as { rowid: number }[];
    return new Set(rows.map((r) => r.rowid));
  }

  /**
   * Replaces every unit's tops (`replace`) or the given units', and records the state, in one
   * transaction; unless another update recorded a state since `expected` was read (false then).
   */
  write(tops: StoredTop[], state: string, replace: boolean, expected: string | null): boolean {
    const put = this.prep('INSERT OR REPLACE INTO word_tops(unit, matches, entries) VALUES (?, ?, ?)');
    return this.db
      .transaction(() => {
        if (this.state() !== expected) return false;
        if (replace) this.prep('DELETE FROM word_tops').run();
        for (const t of tops) put.run(t.unit, t.matches, t.entries);
        writeMeta(this.db, STATE_KEY, state);
        return true;
      })
      .immediate();
  }

  /** Forgets every top (kb doctor --fix rebuilds the word index; the tops are built again after). */
  clear(): void {
    this.db.transaction(() => {
      this.prep('DELETE FROM word_tops').run();
      writeMeta(this.db, STATE_KEY, null);
    })();
  }
}
