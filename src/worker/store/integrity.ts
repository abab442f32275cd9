// The index's own health checks and the one repair SQLite can make from what survives: the word
// indexes rebuilt from the chunks (the chunks are the truth).
import type { Db } from './db.js';
import { unpackChunk } from './packed-chunks.js';
import { substringsUpgrade } from './upgrades/substrings.js';

/** SQLite's quick_check: 'ok', or the first thing it found damaged. */
export function quickCheck(db: Db): string {
  return db.pragma('quick_check', { simple: true }) as string;
}

export function countRows(db: Db, table: 'documents' | 'chunks'): number {
  return db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n;
}

/**
 * The documents with passages that do not read back — a record naming a pack dictionary the index
 * does not hold, bytes that do not inflate — with how many each. Every packed chunk is unpacked once,
 * against the dictionaries in the table: not the connection's own, which could hold one the index
 * lost (a rolled-back write).
 */
export function unreadablePassages(db: Db): Map<string, number> {
  const held = new Map(
    (db.prepare('SELECT id, dict FROM pack_dictionaries').raw().all() as [number, Buffer][]).map(([id, dict]) => [id, dict]),
  );
  const dictionary = (id: number): Buffer => {
    const d = held.get(id);
    if (!d) throw new Error(`no dictionary ${id}`);
    return d;
  };
  const out = new Map<string, number>();
  const rows = db.prepare('SELECT doc_id, packed FROM chunks WHERE packed IS NOT NULL').raw().iterate() as Iterable<[string, Buffer]>;
  for (const [docId, packed] of rows) {
    try {
      unpackChunk(packed, dictionary);
    } catch {
      out.set(docId, (out.get(docId) ?? 0) + 1);
    }
  }
  return out;
}

/**
 * Runs FTS5's integrity checks on both word indexes (they throw when damaged) and counts what the
 * word index holds beside the chunks: they must agree.
 */
export function wordIndexCounts(db: Db): { chunks: number; indexed: number } {
  db.prepare("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')").run();
  // Checked against the chunks (rank 1) only while it holds them all: since the upgrade it holds only
  // the chunks written without spaces.
  const all = substringsUpgrade(db) !== null;
  db.prepare(`INSERT INTO chunks_tri(chunks_tri, rank) VALUES ('integrity-check', ${all ? 1 : 0})`).run();
  db.prepare("INSERT INTO words_tri(words_tri, rank) VALUES ('integrity-check', 1)").run();
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
 * into it again by the chunks' own update trigger; the trigram index of the chunks without spaces
 * and that of the words with an inside are rebuilt from their tables.
 */
export function rebuildWordIndexes(db: Db): void {
  db.transaction(() => {
    db.exec('DELETE FROM chunks_fts');
    db.exec('UPDATE chunks SET heading = heading');
    if (substringsUpgrade(db) !== null) db.prepare("INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild')").run();
    else {
      db.prepare("INSERT INTO chunks_tri(chunks_tri) VALUES ('delete-all')").run();
      db.exec('INSERT INTO chunks_tri(rowid, text) SELECT rowid, text FROM chunks WHERE kb_spaceless(text)');
    }
    db.prepare("INSERT INTO words_tri(words_tri) VALUES ('rebuild')").run();
  })();
}
