// The SQLite adapter of the store port: today's tables (repo.ts) answering at once, wrapped in
// promises; writes nested as savepoints and serialised, so two writers never share a transaction
// (a savepoint opened by one while the other awaits would be rolled back with it).
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db } from './db.js';
import type {
  ChunksPort,
  CollectionsPort,
  DocumentsPort,
  HitsPort,
  IngestErrorsPort,
  NamesPort,
  LibraryPort,
  OcrPagesPort,
  OriginalsPort,
  Store,
  Sync,
  Tables,
  TagsPort,
  TranscriptsPort,
  WriteBatch,
} from './port.js';
import { dictionariesOf } from './index-functions.js';
import { Repo } from './repo.js';
import { recordsOn } from './upgrades/records.js';
import { inSavepoint, WriteBatch as SqliteBatch } from './tx.js';

/** A synchronous adapter object as its port: each method's result, or its throw, as a promise. */
export function promising<T extends object>(sync: Sync<T>): T {
  const out: Record<string, unknown> = {};
  const proto = Object.getPrototypeOf(sync) as object;
  for (const name of Object.getOwnPropertyNames(proto)) {
    const f: unknown = Reflect.get(sync, name);
    if (name === 'constructor' || typeof f !== 'function') continue;
    out[name] = (...args: unknown[]): Promise<unknown> => {
      try {
        return Promise.resolve(Reflect.apply(f, sync, args));
      } catch (e) {
        return Promise.reject(e as Error);
      }
    };
  }
  return out as T;
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly tables: Tables;
  /** One file: searches read what writes wrote. */
  readonly reads: Tables;
  /** Accounts belong to a shared store: one person's file has none. */
  readonly accounts = null;
  readonly repo: Repo;
  /** Set while a write runs: a write inside it nests; another waits its turn. */
  readonly #inWrite = new AsyncLocalStorage<true>();
  #writes: Promise<unknown> = Promise.resolve();

  constructor(
    readonly db: Db,
    readonly where: string,
  ) {
    this.repo = new Repo(db);
    const r = this.repo;
    this.tables = {
      documents: promising<DocumentsPort>(r.documents),
      chunks: promising<ChunksPort>(r.chunks),
      tags: promising<TagsPort>(r.tags),
      originals: promising<OriginalsPort>(r.originals),
      errors: promising<IngestErrorsPort>(r.errors),
      ocr: promising<OcrPagesPort>(r.ocr),
      transcripts: promising<TranscriptsPort>(r.transcripts),
      collections: promising<CollectionsPort>(r.collections),
      library: promising<LibraryPort>(r.library),
      hits: promising<HitsPort>(r.hits),
      names: promising<NamesPort>(r.names),
    };
    this.reads = this.tables;
  }

  write<T>(fn: (t: Tables) => Promise<T>): Promise<T> {
    const run = (): Promise<T> =>
      this.#inWrite.run(true, () => {
        this.#trainPacking();
        return inSavepoint(this.db, 'kb_write', () => fn(this.tables));
      });
    if (this.#inWrite.getStore()) return run();
    const mine = this.#writes.then(run, run);
    this.#writes = mine.catch(() => undefined);
    return mine;
  }

  /**
   * SQLite's data_version moves when another connection commits: looked at every two seconds (a
   * pragma read, no I/O) while a long-lived host runs.
   */
  async watch(onChange: () => void): Promise<() => Promise<void>> {
    const version = (): number => this.db.pragma('data_version', { simple: true }) as number;
    let seen = version();
    const timer = setInterval(() => {
      const now = version();
      if (now !== seen) {
        seen = now;
        onChange();
      }
    }, 2000);
    timer.unref();
    return async () => clearInterval(timer);
  }

  /** A new pack dictionary, when one is due, is trained and committed before a batch: never inside one. */
  #trainPacking(): void {
    if (!this.db.inTransaction && recordsOn(this.db)) dictionariesOf(this.db).refresh(this.db);
  }

  batch(maxMs: number): WriteBatch {
    const b = new SqliteBatch(this.db, maxMs);
    return {
      document: <T>(fn: (t: Tables) => Promise<T>): Promise<T> => {
        this.#trainPacking();
        b.open();
        return this.write(fn);
      },
      commitIfDue: async () => b.commitIfDue(),
      commit: async () => b.commit(),
    };
  }
}
