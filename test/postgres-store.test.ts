// The PostgreSQL store's opening, on a real throwaway cluster (test/support/postgres.ts): its schema
// migrated by an ordinary role, concurrently by several processes' pools; word statistics kept by the
// database in the chunks' own transactions; and what kb says when the server cannot be used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { inTransaction, openPool, type PgPool, storeError } from '../src/worker/store/postgres/connect.js';
import { migratePg, pgVersion } from '../src/worker/store/postgres/migrate.js';
import { PG_MIGRATIONS } from '../src/worker/store/postgres/migrations/index.js';
import { vectorSupport } from '../src/worker/store/postgres/pgvector.js';
import { tablesOn } from '../src/worker/store/postgres/pg-store.js';
import { docRow } from './support/rows.js';

const available = postgresAvailable();

describe.skipIf(!available)('the PostgreSQL store', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  async function migrated(): Promise<PgPool> {
    const pool = await openPool(await cluster.database());
    await migratePg(pool);
    return pool;
  }

  it('migrates a new database as an ordinary role, once, however many processes start together', async () => {
    const url = await cluster.database();
    const pools = await Promise.all([1, 2, 3].map(() => openPool(url)));
    try {
      const runs = await Promise.all(pools.map((p) => migratePg(p)));
      const newest = PG_MIGRATIONS.at(-1)!.version;
      for (const r of runs) expect(r.to).toBe(newest);
      expect(await pgVersion(pools[0]!)).toBe(newest);
      const again = await migratePg(pools[0]!);
      expect(again).toEqual({ from: newest, to: newest });
      const rows = await pools[0]!.query('SELECT version FROM schema_version');
      expect(rows.rowCount).toBe(PG_MIGRATIONS.length);
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });

  it('keeps each word’s document frequency, N and the field lengths in the chunks’ own transaction', async () => {
    const pool = await migrated();
    try {
      const doc = async (id: string, chunks: [string, number][]): Promise<void> =>
        inTransaction(pool, async (c) => {
          await c.query(
            `INSERT INTO documents (id, path, type, content_hash, size, mtime, parser_version, status, original, added_at, updated_at)
             VALUES ($1, $1, 'note', 'h', 1, 1, 1, 'indexed', 'reference', 1, 1)`,
            [id],
          );
          for (const [i, [words, len]] of chunks.entries())
            await c.query(
              `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version, words, title_len, heading_len, body_len)
               VALUES ($1, $2, $3, '', '', '', 1, $4::tsvector, 1, 0, $5)`,
              [`${id}-${i}`, id, i, words, len],
            );
        });
      await doc('a', [
        ["'zebra':1A 'stripe':2,3", 2],
        ["'zebra':1 'lion':2", 2],
      ]);
      await doc('b', [["'lion':1A 'mane':2", 5]]);
      const df = async (): Promise<Record<string, number>> =>
        Object.fromEntries(
          (await pool.query<{ word: string; chunks: string }>('SELECT word, chunks FROM word_stats')).rows.map((r) => [
            r.word,
            Number(r.chunks),
          ]),
        );
      expect(await df()).toEqual({ zebra: 2, stripe: 1, lion: 2, mane: 1 });
      const totals = (await pool.query('SELECT chunks, title_len, body_len FROM chunk_totals')).rows[0];
      expect(totals).toEqual({ chunks: 3, title_len: 3, body_len: 9 });

      // A failed transaction leaves no trace in the statistics.
      await expect(
        doc('c', [
          ["'ghost':1", 1],
          ["'ghost':1", Number.NaN],
        ]),
      ).rejects.toThrow();
      expect((await df()).ghost).toBeUndefined();

      await pool.query(`DELETE FROM documents WHERE id = 'a'`); // the chunks go by cascade
      expect(await df()).toEqual({ lion: 1, mane: 1 });
      expect((await pool.query('SELECT chunks, body_len FROM chunk_totals')).rows[0]).toEqual({ chunks: 1, body_len: 5 });
    } finally {
      await pool.end();
    }
  });

  it('gives waiting work to one process only: a page or a recording claimed is no other’s until queued again', async () => {
    const url = await cluster.database();
    const [a, b] = await Promise.all([openPool(url), openPool(url)]);
    try {
      await migratePg(a);
      const one = tablesOn(a);
      const other = tablesOn(b);
      await one.documents.upsert(docRow('scan', '/scan.pdf', { type: 'pdf' }));
      await one.documents.upsert(docRow('talk', '/talk.mp3', { type: 'audio' }));
      await one.ocr.queue('scan', [1, 2]);
      await one.transcripts.queue('talk', 'pending');
      // Both processes ask for every page at once: each page goes to exactly one of them.
      const claims = await Promise.all([1, 2].flatMap((p) => [one.ocr.claim('scan', p), other.ocr.claim('scan', p)]));
      expect(claims.filter(Boolean)).toHaveLength(2);
      expect(await Promise.all([one.transcripts.claim('talk'), other.transcripts.claim('talk')])).toEqual(
        expect.arrayContaining([true, false]),
      );
      // Queued again (new OCR languages, a new speech model): free to claim.
      await one.ocr.queue('scan', [1]);
      expect(await other.ocr.claim('scan', 1)).toBe(true);
      await one.transcripts.queue('talk', 'pending');
      expect(await other.transcripts.claim('talk')).toBe(true);
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  });

  it('says how to add pgvector when the database lacks it, and that it is there when it is', async () => {
    const without = await openPool(await cluster.database({ vector: false }));
    const withIt = await migrated();
    try {
      const no = await vectorSupport(without);
      expect(no.ready).toBe(false);
      if (!no.ready) expect(no.howTo).toMatch(/CREATE EXTENSION vector/);
      expect(await vectorSupport(withIt)).toMatchObject({ ready: true, version: '0.8.6' });
    } finally {
      await without.end();
      await withIt.end();
    }
  });

  it('says which right the role lacks when it may not create its tables', async () => {
    const url = await cluster.database();
    const db = url.replace(/^.*\//, '');
    // An administrator's database kb's role may connect to but not create anything in.
    const theirs = `${db}_theirs`;
    await cluster.admin('postgres', `CREATE DATABASE ${theirs}`);
    const pool = await openPool(url.replace(/\/[^/]+$/, `/${theirs}`));
    try {
      await expect(migratePg(pool).catch((e: unknown) => Promise.reject(storeError(e, url)))).rejects.toThrow(
        /lacks a right kb needs.*CREATE DATABASE .* OWNER kb_test/s,
      );
    } finally {
      await pool.end();
    }
  });

  it('refuses a superuser, and says plainly when the server is down or the database missing', async () => {
    const url = await cluster.database();
    const asSuper = url.replace('kb_test@', 'postgres@');
    await expect(openPool(asSuper)).rejects.toThrow(/superuser.*ordinary role/s);
    const missing = url.replace(/\/[^/]+$/, '/no_such_db');
    await expect(openPool(missing)).rejects.toThrow(/database "no_such_db" does not exist.*CREATE DATABASE no_such_db OWNER kb_test/);
    const down = url.replace(`:${cluster.port}/`, ':1/');
    await expect(openPool(down)).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringMatching(/cannot reach the PostgreSQL server/),
    });
  });
});
