// Transactions as the engine uses them. better-sqlite3 nests db.transaction() as savepoints, which
// covers synchronous work; a document whose writes wait on a parse thread (a PDF) needs a savepoint
// held across awaits, and ingest commits in time-boxed batches.
import type { Db } from './db.js';

/** Runs fn in a transaction (a savepoint inside one already open): all of it or none of it. */
export function inTransaction<T>(db: Db, fn: () => T): T {
  return db.transaction(fn)();
}

/**
 * Runs async fn inside a savepoint: released when fn resolves, rolled back (and the previous state
 * kept) when it throws. Nothing else may write meanwhile; the ingest loop is the only writer.
 */
export async function inSavepoint<T>(db: Db, name: string, fn: () => Promise<T>): Promise<T> {
  db.exec(`SAVEPOINT ${name}`);
  try {
    const r = await fn();
    db.exec(`RELEASE ${name}`);
    return r;
  } catch (e) {
    db.exec(`ROLLBACK TO ${name}`);
    db.exec(`RELEASE ${name}`);
    throw e;
  }
}

/**
 * Writes grouped into one outer transaction for up to `maxMs`, so commits (and FTS5 segment flushes)
 * happen a few times a second instead of once per document. A crash loses at most the open batch.
 */
export class WriteBatch {
  private started = 0;

  constructor(
    private readonly db: Db,
    private readonly maxMs: number,
  ) {}

  /** Opens a batch unless one is open. */
  open(): void {
    if (this.db.inTransaction) return;
    this.db.exec('BEGIN IMMEDIATE');
    this.started = performance.now();
  }

  /** Commits the batch when it has run for maxMs. */
  commitIfDue(): void {
    if (performance.now() - this.started > this.maxMs) this.commit();
  }

  commit(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }
}
