// What a connection cached of its own writes is false once they roll back: a pack dictionary trained
// inside a document that then failed, the word statistics a search read while an ingest's batch was
// open (one connection does both), the tops' scores of chunks whose rowids the next document reuses.
// SQLite says nothing when it rolls back (better-sqlite3 has no rollback hook), so every way a kb
// connection rolls back is watched here: a db.transaction() whose function throws (better-sqlite3
// then rolls it, or its savepoint, back) and an explicit ROLLBACK (inSavepoint's ROLLBACK TO). Caches
// compare the count, or the version of the chunks below, with the one they were filled at.
import type { Db } from './db.js';
import { chunksGeneration } from './db.js';

const counts = new WeakMap<Db, number>();
const ROLLBACK = /^\s*ROLLBACK\b/i;

/** Counts the connection's rollbacks from now on: openDb calls it once per connection. */
export function watchRollbacks(db: Db): void {
  if (counts.has(db)) return;
  counts.set(db, 0);
  const exec = db.exec.bind(db);
  db.exec = (sql: string): Db => {
    if (ROLLBACK.test(sql)) noteRollback(db);
    return exec(sql);
  };
  const transaction = db.transaction.bind(db);
  db.transaction = (<F extends (...args: never[]) => unknown>(fn: F) =>
    transaction(function (this: unknown, ...args: Parameters<F>): ReturnType<F> {
      try {
        return fn.apply(this, args) as ReturnType<F>;
      } catch (e) {
        noteRollback(db);
        throw e;
      }
    } as F)) as Db['transaction'];
}

/** Said before the rollback itself runs: a cache that sees the count move reads the index again later. */
export function noteRollback(db: Db): void {
  counts.set(db, (counts.get(db) ?? 0) + 1);
}

/** How many times the connection rolled back (a transaction or a savepoint). */
export function rollbacks(db: Db): number {
  return counts.get(db) ?? 0;
}

const versions = new WeakMap<Db, { generation: number; rollbacks: number; version: number }>();

/**
 * A number that moves whenever the chunks may have changed as this connection sees them: their
 * generation moved (a write here or another process's commit), or something rolled back — after
 * which the generation can come back to a value a cache was filled at, over other chunks.
 */
export function chunksVersion(db: Db): number {
  const generation = chunksGeneration(db);
  const r = rollbacks(db);
  const last = versions.get(db);
  if (last && last.generation === generation && last.rollbacks === r) return last.version;
  const version = (last?.version ?? 0) + 1;
  versions.set(db, { generation, rollbacks: r, version });
  return version;
}
