// The SQLite store's side of the heavy units' tops (migration 10; search/tops.ts says what they
// hold): one unit's entries for a search, the vocabulary and the chunks an update reads, and its
// state in meta. SQLite writes one chunk at a time, so the chunks an update has not seen are the
// rowids past the last one it read.
import type { Statement } from 'better-sqlite3';
import { chunksGeneration, type Db } from './db.js';
import { rollbacks } from './rollbacks.js';
import { filterSql, type Filters } from './doc-filter.js';
import { readMeta, writeMeta } from './meta.js';
import type { StoredTop, TopsChunk, TopsHead, TopsPort, TopsReading } from './port.js';
import { StatementCache } from './statement-cache.js';

const STATE_KEY = 'word_tops';
/** The chunks past a rowid, with what the tops score. */
const UNSEEN = `SELECT c.rowid AS rowid, d.title AS title, kb_heading(c.packed, c.heading) AS heading, kb_unpack(c.packed, c.text) AS text
  FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid > ? ORDER BY c.rowid`;

export class WordTopsTable implements TopsPort {
  private readonly stmts: StatementCache;

  constructor(readonly db: Db) {
    this.stmts = new StatementCache(db);
  }

  private prep(sql: string): Statement {
    return this.stmts.get(sql);
  }

  private state(): string | null {
    return readMeta(this.db, STATE_KEY);
  }

  private lastRowid(): number {
    return (this.prep('SELECT max(rowid) AS hi FROM chunks').get() as { hi: number | null }).hi ?? 0;
  }

  async head(): Promise<TopsHead> {
    return {
      state: this.state(),
      lastRowid: this.lastRowid(),
      pending: false,
      generation: chunksGeneration(this.db),
      epoch: rollbacks(this.db),
    };
  }

  async unitNames(): Promise<string[]> {
    return (this.prep('SELECT unit FROM word_tops').all() as { unit: string }[]).map((r) => r.unit);
  }

  async unseenChunks(upto: number, known: number[], limit: number): Promise<TopsChunk[] | null> {
    const unseen = (this.prep('SELECT count(*) AS n FROM chunks WHERE rowid > ?').get(upto) as { n: number }).n;
    if (unseen > limit) return null;
    // One writer, in rowid order: the chunks not known yet are past the last known.
    return this.prep(UNSEEN).all(known.reduce((a, b) => Math.max(a, b), upto)) as TopsChunk[];
  }

  async get(unit: string): Promise<StoredTop | null> {
    return (this.prep('SELECT unit, matches, entries FROM word_tops WHERE unit = ?').get(unit) as StoredTop | undefined) ?? null;
  }

  async units(): Promise<number> {
    return (this.prep('SELECT count(*) AS n FROM word_tops').get() as { n: number }).n;
  }

  async passing(rowids: number[], filters: Filters): Promise<Set<number>> {
    if (rowids.length === 0) return new Set();
    const f = filterSql(filters);
    const rows = this.prep(
      `SELECT c.rowid AS rowid FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.rowid IN (SELECT value FROM json_each(?)) ${f.where}`,
    ).all(JSON.stringify(rowids), ...f.params) as { rowid: number }[];
    return new Set(rows.map((r) => r.rowid));
  }

  /**
   * One read transaction on this connection. Only the tops thread, whose connection nothing else
   * uses, reads this way: its awaits let no other statement in.
   */
  async reading<T>(fn: (r: TopsReading) => Promise<T>): Promise<T> {
    this.db.exec('BEGIN');
    try {
      return await fn(this.reader());
    } finally {
      this.db.exec('COMMIT');
    }
  }

  private reader(): TopsReading {
    const prep = (sql: string): Statement => this.prep(sql);
    return {
      all: async () => prep('SELECT unit, matches, entries FROM word_tops').all() as StoredTop[],
      // fts5vocab walks the whole index, in SQLite's term order (UTF-8 bytes).
      async *vocabulary() {
        yield* prep('SELECT term, doc FROM chunks_vocab ORDER BY term').iterate() as Iterable<{ term: string; doc: number }>;
      },
      async *unseen(upto: number | null) {
        yield* prep(UNSEEN).iterate(upto ?? 0) as Iterable<TopsChunk>;
      },
      existing: async (rowids: number[]) => {
        if (rowids.length === 0) return new Set<number>();
        const rows = prep('SELECT rowid FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))').all(JSON.stringify(rowids)) as {
          rowid: number;
        }[];
        return new Set(rows.map((r) => r.rowid));
      },
    };
  }

  async write(tops: StoredTop[], state: string, replace: boolean, expected: string | null): Promise<boolean> {
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

  async clear(): Promise<void> {
    this.db.transaction(() => {
      this.prep('DELETE FROM word_tops').run();
      writeMeta(this.db, STATE_KEY, null);
    })();
  }
}
