// Opening the SQLite index: WAL, 16 KB pages, the connection's pragmas and SQL functions, and the
// migrations in order (user_version) — with a new index's upgrades under the same write lock.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { KbError } from '../../shared/errors.js';
import { type Db, schemaVersion } from './db.js';
import { registerIndexFunctions } from './index-functions.js';
import { watchRollbacks } from './rollbacks.js';
import { MIGRATIONS } from './migrations/index.js';
import { AT_OPEN, smallUpgradePending, upgradeSmall } from './upgrades/index.js';

export interface OpenDbOptions {
  readonly?: boolean;
  /** false: a small index's pending upgrades are left for the caller to step through (the upgrades' own tests). */
  upgrade?: boolean;
}

export function openDb(file: string, opts: OpenDbOptions = {}): Db {
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: opts.readonly === true, readonly: opts.readonly === true });
  } catch (e) {
    throw new KbError('DATA_DIR', `cannot open the index ${file}: ${(e as Error).message}`, { cause: e });
  }
  if (opts.readonly) {
    // A read-only data dir (a backup, a shared drive): searchable, never written, not even migrated.
    // SQLite cannot read a WAL-mode file where it may not create the -shm beside it: then a private
    // copy of the index is searched instead (removed when the process ends).
    try {
      db.pragma('user_version', { simple: true });
    } catch (e) {
      db.close();
      if ((e as { code?: string }).code !== 'SQLITE_READONLY_DIRECTORY' && (e as { code?: string }).code !== 'SQLITE_CANTOPEN') throw e;
      const copy = join(mkdtempSync(join(tmpdir(), 'kb-readonly-')), 'kb.sqlite');
      copyFileSync(file, copy);
      process.once('exit', () => rmSync(dirname(copy), { recursive: true, force: true }));
      db = new Database(copy);
    }
    db.pragma('busy_timeout = 5000');
    db.pragma('query_only = ON');
    watchRollbacks(db);
    registerIndexFunctions(db);
    const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
    const version = schemaVersion(db);
    if (version !== latest) {
      db.close();
      throw new KbError(
        'DATA_DIR',
        `the index ${file} is read-only and was written by another version of kb (schema ${version}, this build needs ${latest})`,
      );
    }
    return db;
  }
  try {
    // First, so that another process opening the same file meanwhile makes us wait, not fail.
    db.pragma('busy_timeout = 5000');
    // Two processes creating one new index at once: switching a new file to WAL takes a lock SQLite does
    // not wait for (busy_timeout is not asked), so "database is locked" comes at once. Try again.
    untilNotBusy(() => {
      // Chunk rows are around 1 KB: 16 KB pages pack them with little slack. Only takes effect on a new
      // file. (Not auto_vacuum: with it, an index on a disk that filled up could not always be opened
      // again — SQLite wanted to write before it would read; kb gc rewrites the file instead.)
      db.pragma('page_size = 16384');
      db.pragma('journal_mode = WAL');
    });
    db.pragma('synchronous = NORMAL');
    // A WAL that grew while a long reader held it back (a big ingest beside the tops' update) is cut
    // back to this once a checkpoint empties it (about what it holds between two checkpoints, 1,000
    // pages); without a limit the file keeps its largest size, counted in the index's.
    db.pragma('journal_size_limit = 16777216');
    db.pragma('foreign_keys = ON');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -32000');
    watchRollbacks(db);
    // Before the migrations: their triggers call them.
    registerIndexFunctions(db);
    untilNotBusy(() => migrate(db, opts.upgrade !== false));
  } catch (e) {
    db.close();
    if (e instanceof KbError) throw e;
    const msg = (e as Error).message;
    const code = /malformed|not a database|corrupt/i.test(msg) ? 'DB_CORRUPT' : 'DATA_DIR';
    throw new KbError(code, `cannot open the index ${file}: ${msg}`, { cause: e });
  }
  return db;
}

/** Runs `f`, again after a short sleep while SQLite says the file is busy, for up to 10 s. */
function untilNotBusy(f: () => void): void {
  const deadline = Date.now() + 10_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      f();
      return;
    } catch (e) {
      const code = (e as { code?: string }).code ?? '';
      if (!code.startsWith('SQLITE_BUSY') || Date.now() > deadline) throw e;
      Atomics.wait(pause, 0, 0, 25 + Math.random() * 50); // a synchronous sleep: opening is synchronous
    }
  }
}

export function migrate(db: Db, upgrade = true): void {
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  const check = (current: number): void => {
    if (current > latest) {
      throw new KbError('DATA_DIR', `this index was written by a newer kb (schema ${current}, this build knows ${latest}); upgrade kb`);
    }
  };
  check(schemaVersion(db));
  if (schemaVersion(db) === latest && !(upgrade && smallUpgradePending(db, AT_OPEN))) return;
  // The write lock first, then the version read again: two processes opening a new data dir at once
  // must not both run the same migration (the second would find its tables already there).
  db.transaction(() => {
    const current = schemaVersion(db);
    check(current);
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    }
    // The upgrades a new or small index has left (store/upgrades/), under the same write lock: they
    // rewrite triggers and tables, changes of schema that a second process opening the index meanwhile
    // would meet in the middle of its statements ("vtable constructor failed"). A big index's are
    // done in the background (maintenance/upgrade.ts).
    if (upgrade || current === 0) {
      try {
        upgradeSmall(db, AT_OPEN);
      } catch (e) {
        // A full disk, say: the migrations still commit; the engine tries again and says why.
        if (!db.inTransaction) throw e;
      }
    }
  }).immediate();
}
