// The PostgreSQL adapter of the store port: the tables over the pool, or over one connection inside
// a transaction. A write nested in another joins it (a savepoint); a write that lost a deadlock or a
// serialisation race to another process's is run again, whole.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Store, Tables, WriteBatch } from '../port.js';
import { type PgClient, type PgPool, shownUrl } from './connect.js';
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

  constructor(
    readonly pool: PgPool,
    url: string,
  ) {
    this.tables = tablesOn(pool);
    this.where = shownUrl(url);
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

  /** Each document commits on its own: a server has no cost per commit worth batching away. */
  batch(): WriteBatch {
    return {
      document: (fn) => this.write(fn),
      commitIfDue: async () => undefined,
      commit: async () => undefined,
    };
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
