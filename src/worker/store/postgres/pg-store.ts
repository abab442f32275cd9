// The PostgreSQL adapter of the store port: the tables over the pool, or over one connection inside
// a transaction. A write nested in another joins it (a savepoint); a write that lost a deadlock or a
// serialisation race to another process's is run again, whole.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, Tables, WriteBatch } from '../port.js';
import { type PgClient, type PgPool, shownUrl } from './connect.js';
import { PgAccounts } from './tables/accounts.js';
import { PgChunks } from './tables/chunks.js';
import { PgCollections } from './tables/collections.js';
import { PgDocuments } from './tables/documents.js';
import { PgHits } from './tables/hits.js';
import { PgIngestErrors } from './tables/ingest-errors.js';
import { PgLibraryPages } from './tables/library-pages.js';
import { PgNames } from './tables/names.js';
import { PgOcrPages } from './tables/ocr-pages.js';
import { PgOriginals } from './tables/originals.js';
import type { Sql } from './tables/sql.js';
import { PgTags } from './tables/tags.js';
import { PgTranscripts } from './tables/transcripts.js';

/** Deadlock detected, serialisation failure: the transaction can simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 5;
/** A batch this big (and a tenth of the index) has the planner's statistics gathered at its end. */
const ANALYZE_MIN = 200;

export function tablesOn(sql: Sql): Tables {
  return {
    documents: new PgDocuments(sql),
    chunks: new PgChunks(sql),
    tags: new PgTags(sql),
    originals: new PgOriginals(sql),
    errors: new PgIngestErrors(sql),
    ocr: new PgOcrPages(sql),
    transcripts: new PgTranscripts(sql),
    collections: new PgCollections(sql),
    library: new PgLibraryPages(sql),
    hits: new PgHits(sql),
    names: new PgNames(sql),
  };
}

export class PgStore implements Store {
  readonly kind = 'postgres';
  readonly tables: Tables;
  readonly where: string;
  /** The transaction a write runs in, for the writes nested in it. */
  readonly #open = new AsyncLocalStorage<{ client: PgClient; tables: Tables; depth: number }>();
  /** With its password: kept out of anything shown or logged. */
  readonly #url: string;
  readonly reads: Tables;
  readonly accounts: PgAccounts;

  constructor(
    readonly pool: PgPool,
    url: string,
    /** The pool searches read from: a hot standby's (store.read_url), or one of their own on the primary (open.ts). */
    readonly readPool: PgPool = pool,
  ) {
    this.tables = tablesOn(pool);
    this.reads = readPool === pool ? this.tables : tablesOn(readPool);
    this.accounts = new PgAccounts(pool, pool);
    this.where = shownUrl(url);
    this.#url = url;
  }

  /** The URL to connect with, for a thread that opens its own pool. */
  connectionUrl(): string {
    return this.#url;
  }

  async write<T>(fn: (t: Tables) => Promise<T>): Promise<T> {
    const open = this.#open.getStore();
    if (open) return this.nested(open, fn);
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      try {
        await client.query('BEGIN');
        const tx = { client, tables: tablesOn(client), depth: 0 };
        const out = await this.#open.run(tx, () => fn(tx.tables));
        await client.query('COMMIT');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        if (!RETRYABLE.has((e as { code?: string }).code ?? '') || attempt >= ATTEMPTS) throw e;
        await new Promise((r) => setTimeout(r, 5 * attempt * Math.random()));
      } finally {
        client.release();
      }
    }
  }

  private async nested<T>(open: { client: PgClient; tables: Tables; depth: number }, fn: (t: Tables) => Promise<T>): Promise<T> {
    const name = `kb_nested_${++open.depth}`;
    await open.client.query(`SAVEPOINT ${name}`);
    try {
      const out = await fn(open.tables);
      await open.client.query(`RELEASE SAVEPOINT ${name}`);
      return out;
    } catch (e) {
      await open.client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      throw e;
    } finally {
      open.depth--;
    }
  }

  /**
   * Each document commits on its own: a server has no cost per commit worth batching away. A batch
   * that wrote a tenth of the documents or more gathers the planner's statistics at its end: the
   * autovacuum does so within a minute or so, and a search meanwhile could be planned blind.
   */
  batch(): WriteBatch {
    let before: Promise<number> | null = null;
    let written = 0;
    return {
      document: async (fn) => {
        before ??= this.tables.documents.count();
        const out = await this.write(fn);
        written++;
        return out;
      },
      commitIfDue: async () => undefined,
      commit: async () => {
        if (written >= ANALYZE_MIN && written >= ((await before) ?? 0) / 10) await this.pool.query('SELECT kb_analyze()'); // the owner's (migration 15)
        written = 0;
        before = null;
      },
    };
  }

  /** LISTEN on kb_changed (migration 6), on a connection of its own; a lost connection is opened again. */
  async watch(onChange: () => void): Promise<() => Promise<void>> {
    const { watchChanges } = await import('./change-watch.js');
    return watchChanges(this.pool, onChange);
  }

  async close(): Promise<void> {
    if (this.readPool !== this.pool) await this.readPool.end();
    await this.pool.end();
  }
}
