// The PostgreSQL store's side of the heavy units' tops (migration 3; search/tops.ts says what they
// hold). Chunks the tops have not seen are the queue's, not the rowids past the last update: two
// writers commit out of rowid order. An update reads at one moment (a repeatable-read transaction)
// under an advisory lock, so of several kb processes on one database one updates at a time, and its
// write takes the chunks it read off the queue.
import { type Filters, pathMatcher } from '../doc-filter.js';
import type { StoredTop, TopsChunk, TopsHead, TopsPort, TopsReading } from '../port.js';
import { inTransaction, type PgPool } from './connect.js';
import { first, rows, type Sql, value } from './tables/sql.js';
import { filterWhere } from './word-index.js';

const STATE_KEY = 'word_tops';
/** Advisory lock keys (migrate.ts holds 0x6b62_0001): one process reads for an update at a time; writes of the tops queue up. */
const UPDATE_LOCK = 0x6b62_0002;
const WRITE_LOCK = 0x6b62_0003;
/** Rows read per statement while an update walks the chunks or the vocabulary. */
const PAGE = 2000;

export class PgWordTops implements TopsPort {
  constructor(private readonly pool: PgPool) {}

  async head(): Promise<TopsHead> {
    const r = await first<{ state: string | null; last: number | null; pending: boolean; generation: number | null }>(
      this.pool,
      // kb_last_rowid() (migration 10): of every passage, whichever user the session acts for.
      `SELECT (SELECT value FROM meta WHERE key = $1) AS state, kb_last_rowid() AS last,
              EXISTS (SELECT 1 FROM word_tops_queue) AS pending, (SELECT generation FROM chunk_totals) AS generation`,
      [STATE_KEY],
    );
    // epoch 0: a search here sees only commits, and a sequence never gives a rolled-back rowid again.
    return { state: r?.state ?? null, lastRowid: r?.last ?? 0, pending: r?.pending ?? false, generation: r?.generation ?? 0, epoch: 0 };
  }

  async unitNames(): Promise<string[]> {
    return (await rows<{ unit: string }>(this.pool, 'SELECT unit FROM word_tops')).map((r) => r.unit);
  }

  /** The queue's chunks: a passage another user may not read is among them (the caller acts as the engine). */
  async unseenChunks(_upto: number, known: number[], limit: number): Promise<TopsChunk[] | null> {
    if (((await value<number>(this.pool, 'SELECT count(*) FROM word_tops_queue')) ?? 0) > limit) return null;
    return rows<TopsChunk>(
      this.pool,
      `SELECT c.rowid, d.title, c.heading, c.text FROM word_tops_queue q JOIN chunks c ON c.rowid = q.rowid
       JOIN documents d ON d.id = c.doc_id WHERE NOT EXISTS (SELECT 1 FROM unnest($1::bigint[]) k (rowid) WHERE k.rowid = q.rowid)`,
      [known],
    );
  }

  async get(unit: string): Promise<StoredTop | null> {
    return (await first<StoredTop>(this.pool, 'SELECT unit, matches, entries FROM word_tops WHERE unit = $1', [unit])) ?? null;
  }

  async units(): Promise<number> {
    return (await value<number>(this.pool, 'SELECT count(*) FROM word_tops')) ?? 0;
  }

  /** The path glob is matched here, on the few chunks asked about, rather than as a list of documents. */
  async passing(rowids: number[], filters: Filters): Promise<Set<number>> {
    if (rowids.length === 0) return new Set();
    const f = filterWhere({ ...filters, path: undefined }, null, 2);
    const r = await rows<{ rowid: number; path: string }>(
      this.pool,
      // Joined from the list: = ANY over the primary key took three times as long for 256 chunks.
      `SELECT c.rowid, d.path FROM unnest($1::bigint[]) r (rowid) JOIN chunks c ON c.rowid = r.rowid
       JOIN documents d ON d.id = c.doc_id WHERE ${f.sql}`,
      [rowids, ...f.values],
    );
    const inPath = filters.path ? pathMatcher(filters.path) : () => true;
    return new Set(r.filter((x) => inPath(x.path)).map((x) => x.rowid));
  }

  async reading<T>(fn: (r: TopsReading) => Promise<T>): Promise<T | null> {
    const client = await this.pool.connect();
    try {
      if ((await value<boolean>(client, 'SELECT pg_try_advisory_lock($1)', [UPDATE_LOCK])) !== true) return null;
      try {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        try {
          return await fn(reader(client));
        } finally {
          await client.query('COMMIT');
        }
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [UPDATE_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  async write(tops: StoredTop[], state: string, replace: boolean, expected: string | null, seen: number[]): Promise<boolean> {
    return inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      const now = (await value<string>(c, 'SELECT value FROM meta WHERE key = $1', [STATE_KEY])) ?? null;
      if (now !== expected) return false;
      if (replace) await c.query('DELETE FROM word_tops');
      for (let i = 0; i < tops.length; i += 500) {
        const part = tops.slice(i, i + 500);
        await c.query(
          `INSERT INTO word_tops (unit, matches, entries) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
           ON CONFLICT (unit) DO UPDATE SET matches = excluded.matches, entries = excluded.entries`,
          [part.map((t) => t.unit), part.map((t) => t.matches), part.map((t) => t.entries)],
        );
      }
      await c.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
        STATE_KEY,
        state,
      ]);
      for (let i = 0; i < seen.length; i += 50_000) {
        await c.query('DELETE FROM word_tops_queue WHERE rowid = ANY ($1::bigint[])', [seen.slice(i, i + 50_000)]);
      }
      return true;
    });
  }

  /** Also empties the queue: the next tops are built from every chunk. */
  async clear(): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      await c.query('DELETE FROM word_tops');
      await c.query('DELETE FROM meta WHERE key = $1', [STATE_KEY]);
      await c.query('DELETE FROM word_tops_queue');
    });
  }
}

function reader(sql: Sql): TopsReading {
  return {
    all: () => rows<StoredTop>(sql, 'SELECT unit, matches, entries FROM word_tops'),
    async *vocabulary() {
      for (let after = ''; ;) {
        const page = await rows<{ term: string; doc: number }>(
          sql,
          'SELECT word AS term, chunks AS doc FROM word_stats WHERE word > $1 ORDER BY word LIMIT $2',
          [after, PAGE * 5],
        );
        yield* page;
        if (page.length < PAGE * 5) return;
        after = page.at(-1)!.term;
      }
    },
    async *unseen(upto: number | null) {
      // Every chunk, or the queue's (whatever `upto` says: a queued chunk may have a lower rowid).
      const from =
        upto === null
          ? 'chunks c JOIN documents d ON d.id = c.doc_id'
          : 'word_tops_queue q JOIN chunks c ON c.rowid = q.rowid JOIN documents d ON d.id = c.doc_id';
      for (let after = 0; ;) {
        const page = await rows<TopsChunk>(
          sql,
          `SELECT c.rowid, d.title, c.heading, c.text FROM ${from} WHERE c.rowid > $1 ORDER BY c.rowid LIMIT $2`,
          [after, PAGE],
        );
        yield* page;
        if (page.length < PAGE) return;
        after = page.at(-1)!.rowid;
      }
    },
    async existing(rowids: number[]) {
      if (rowids.length === 0) return new Set<number>();
      const r = await rows<{ rowid: number }>(sql, 'SELECT rowid FROM chunks WHERE rowid = ANY ($1::bigint[])', [rowids]);
      return new Set(r.map((x) => x.rowid));
    },
  };
}
