// A connection to the SQLite index, and what any module reads of the connection itself: its
// schema's version and the chunks' generation. Opening one (WAL, pragmas, migrations): open-db.ts.
import type Database from 'better-sqlite3';

export type Db = Database.Database;

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Bumped by triggers on every chunk insert and delete (migration 2): caches of index statistics key on it. */
export function chunksGeneration(db: Db): number {
  const row = db.prepare("SELECT value FROM meta WHERE key = 'chunks_generation'").get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}
