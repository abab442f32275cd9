// Giving the file's free pages back to the disk. Deleting rows (removed documents, an upgrade that
// dropped a whole index) leaves free pages SQLite reuses but never returns, and packing rows in place
// leaves their pages half empty: once there are enough, or an upgrade asked for it, the file is
// rewritten (VACUUM).
import type { Db } from './db.js';

/** Free pages are given back once they are this share of the file… */
const FREE_SHARE = 0.2;
/** …and at least this many bytes. */
const FREE_MIN = 256 * 1024;

const pragma = (db: Db, name: string): number => db.pragma(name, { simple: true }) as number;

/** The index file's bytes, and how many of them are free pages. */
export function fileUse(db: Db): { bytes: number; free: number } {
  const page = pragma(db, 'page_size');
  return { bytes: pragma(db, 'page_count') * page, free: pragma(db, 'freelist_count') * page };
}

/** Set by an upgrade that rewrote rows smaller (packing): their pages are half empty, not free. */
const REWRITE_KEY = 'compact_wanted';

export function wantRewrite(db: Db): void {
  db.prepare("INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO NOTHING").run(REWRITE_KEY);
}

/**
 * Rewrites the file when a fifth of it is free pages (and at least 256 KB), or once after an
 * upgrade asked for it; the bytes the file shrank by.
 */
export function compactIndex(db: Db): number {
  const before = fileUse(db);
  const rewrite = db.prepare('SELECT 1 FROM meta WHERE key = ?').get(REWRITE_KEY) !== undefined;
  if (!rewrite && (before.free < FREE_MIN || before.free < FREE_SHARE * before.bytes)) return 0;
  // VACUUM builds the new file as a temporary database first: on disk, not in memory (temp_store
  // is MEMORY for sorts): at a million chunks that copy is 1.5 GB.
  db.pragma('temp_store = FILE');
  try {
    db.exec('VACUUM');
  } finally {
    db.pragma('temp_store = MEMORY');
  }
  db.prepare('DELETE FROM meta WHERE key = ?').run(REWRITE_KEY);
  // The pages went through the WAL: written back and the WAL emptied, or the disk holds them twice.
  db.pragma('wal_checkpoint(TRUNCATE)');
  return Math.max(0, before.bytes - fileUse(db).bytes);
}
