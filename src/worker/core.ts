// What every engine service works on: one data dir's config, database and stored originals. Services
// receive it from openEngine; nothing outside src/worker ever sees it.
import { join } from 'node:path';
import type { Config } from '../shared/config.js';
import { KbError } from '../shared/errors.js';
import type { Log } from './log.js';
import type { InEffect } from './config/env.js';
import { BlobStore } from './store/blobs.js';
import type { BlobsPort } from './store/port.js';
import { PgBlobs } from './store/postgres/blobs.js';
import type { Db } from './store/db.js';
import type { PgStore } from './store/postgres/pg-store.js';
import type { SqliteStore } from './store/sqlite-store.js';

export class Core {
  /** The engine's tables, wherever they live (store/port.ts): this data dir's SQLite file, or PostgreSQL. */
  readonly store: SqliteStore | PgStore;
  /** The originals' bytes: beside the SQLite file, or in the PostgreSQL database (a copy here of each one opened). */
  readonly blobs: BlobsPort;
  readonly #wordsListeners: (() => void)[] = [];

  constructor(
    readonly dataDir: string,
    readonly config: Config,
    /** The settings an environment variable set, and which (config/env.ts). */
    readonly fromEnv: InEffect['fromEnv'],
    store: SqliteStore | PgStore,
    /** Set when the data dir cannot be written: searching works, changing the index does not. */
    readonly readOnly: boolean,
    readonly log: Log,
  ) {
    this.store = store;
    this.blobs = store.kind === 'sqlite' ? new BlobStore(join(dataDir, 'blobs')) : new PgBlobs(store.pool, join(dataDir, 'blobs'));
  }

  /** The SQLite store's database, for what only it has (FTS5 upkeep, upgrades, LanceDB's bindings); null on PostgreSQL. */
  get sqlite(): Db | null {
    return this.store.kind === 'sqlite' ? this.store.db : null;
  }

  assertWritable(what: string): void {
    if (this.readOnly) throw new KbError('DATA_DIR', `the data dir ${this.dataDir} is read-only: kb can search it, but cannot ${what}`);
  }

  /** The index's words changed: whoever caches statistics of them (the searcher) reads them again. */
  wordsChanged(): void {
    for (const listener of this.#wordsListeners) listener();
  }

  onWordsChanged(listener: () => void): void {
    this.#wordsListeners.push(listener);
  }
}

/** A full disk as the user should hear it (SQLite says "database or disk is full", Node ENOSPC). */
export function diskFull(e: unknown, dataDir: string): KbError | null {
  const code = (e as { code?: string }).code;
  if (code !== 'SQLITE_FULL' && code !== 'ENOSPC') return null;
  return new KbError(
    'DATA_DIR',
    `the disk holding ${dataDir} is full: free some space, then run the same command again (everything indexed so far is kept)`,
    { cause: e },
  );
}
