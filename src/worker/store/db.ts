import Database from 'better-sqlite3';
import { KbError } from '../../shared/errors.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export interface OpenDbOptions {
  readonly?: boolean;
}

export function openDb(file: string, opts: OpenDbOptions = {}): Db {
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: opts.readonly === true });
  } catch (e) {
    throw new KbError('DATA_DIR', `cannot open the index ${file}: ${(e as Error).message}`, { cause: e });
  }
  try {
    // Chunk rows are around 1 KB: 16 KB pages pack them with little slack. Only takes effect on a new file.
    db.pragma('page_size = 16384');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    db.pragma('temp_store = MEMORY');
    db.pragma('cache_size = -32000');
    migrate(db);
  } catch (e) {
    db.close();
    if (e instanceof KbError) throw e;
    const msg = (e as Error).message;
    const code = /malformed|not a database|corrupt/i.test(msg) ? 'DB_CORRUPT' : 'DATA_DIR';
    throw new KbError(code, `cannot open the index ${file}: ${msg}`, { cause: e });
  }
  return db;
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

export function migrate(db: Db): void {
  const current = schemaVersion(db);
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  if (current > latest) {
    throw new KbError(
      'DATA_DIR',
      `this index was written by a newer kb (schema ${current}, this build knows ${latest}); upgrade kb`,
    );
  }
  for (const m of MIGRATIONS) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

/** Bumped by triggers on every chunk insert and delete (migration 2): caches of index statistics key on it. */
export function chunksGeneration(db: Db): number {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'chunks_generation'").get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}
