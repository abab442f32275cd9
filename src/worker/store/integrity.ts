// The index's own health checks and the one repair SQLite can make from what survives: the word
// indexes rebuilt from the chunks (the chunks are the truth).
import type { Db } from './db.js';

/** SQLite's quick_check: 'ok', or the first thing it found damaged. */
export function quickCheck(db: Db): string {
  return db.pragma('quick_check', { simple: true }) as string;
}

export function countRows(db: Db, table: 'documents' | 'chunks'): number {
  return db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
}

/**
 * Runs FTS5's integrity checks on both word indexes (they throw when damaged) and counts what the
 * word index holds beside the chunks: they must agree.
 */
export function wordIndexCounts(db: Db): { chunks: number; indexed: number } {
  db.prepare("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')").run();
  db.prepare("INSERT INTO chunks_tri(chunks_tri, rank) VALUES ('integrity-check', 1)").run();
  return { chunks: countRows(db, 'chunks'), indexed: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks_fts').get()!.n };
}

/** Whether both word indexes pass their checks and hold every chunk. */
export function wordIndexesSound(db: Db): boolean {
  try {
    const { chunks, indexed } = wordIndexCounts(db);
    return chunks === indexed;
  } catch {
    return false;
  }
}

/**
 * The word index keeps no copy of the text (contentless): it is emptied and every chunk is written
 * into it again by the chunks' own update trigger; the trigram index rebuilds from the chunks.
 */
export function rebuildWordIndexes(db: Db): void {
  db.transaction(() => {
    db.exec('DELETE FROM chunks_fts');
    db.exec('UPDATE chunks SET heading = heading');
    db.prepare("INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild')").run();
  })();
}
