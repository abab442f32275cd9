// The chunks table: the passages search finds. Their word and trigram indexes follow by trigger; each
// is stored packed (packed-chunks.ts) and read through kb_unpack, kb_heading and kb_anchor.
import type { Db } from './db.js';
import { dictionariesOf, packable } from './index-functions.js';
import { readMeta, writeMeta } from './meta.js';
import { packRecord, packText } from './packed-chunks.js';
import { packingOn } from './upgrades/packing.js';
import { recordsOn } from './upgrades/records.js';
import type { ChunkRow, NewChunk } from './rows.js';
import type { ChunksPort, Sync } from './port.js';

export type { ChunkRow, NewChunk } from './rows.js';

type InsertRow = Omit<NewChunk, 'anchor'> & { rowid: number; doc_id: string; anchor: string; packed: Buffer | null };

/**
 * The last rowid a chunk was given. Rowids are never given twice: the heavy words' tops
 * (search/tops.ts) and the whole merges of the word indexes (fts-merge.ts) take the chunks past a
 * rowid for those written since, and SQLite would give a deleted last document's rowids to the
 * next version of it.
 */
const LAST_ROWID = 'chunks_last_rowid';

const COLUMNS =
  'rowid, id, doc_id, ordinal, kb_heading(packed, heading) AS heading, kb_unpack(packed, text) AS text, kb_anchor(packed, anchor) AS anchor, chunker_version';

export class Chunks implements Sync<ChunksPort> {
  private readonly insertQ;
  private readonly deleteOfDocQ;
  private readonly byIdQ;
  private readonly ofDocQ;
  private readonly countQ;
  private readonly maxOrdinalQ;
  private readonly refreshQ;
  private readonly maxRowidQ;
  private readonly totalQ;

  constructor(private readonly db: Db) {
    this.insertQ = db.prepare<[InsertRow]>(`INSERT INTO chunks (rowid, id, doc_id, ordinal, heading, text, anchor, chunker_version, packed)
      VALUES (@rowid, @id, @doc_id, @ordinal, @heading, @text, @anchor, @chunker_version, @packed)`);
    this.maxRowidQ = db.prepare<[], { n: number }>('SELECT coalesce(max(rowid), 0) AS n FROM chunks');
    this.totalQ = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks');
    this.deleteOfDocQ = db.prepare<[string]>('DELETE FROM chunks WHERE doc_id = ?');
    this.byIdQ = db.prepare<[string], ChunkRow>(`SELECT ${COLUMNS} FROM chunks WHERE id = ?`);
    this.ofDocQ = db.prepare<[string], ChunkRow>(`SELECT ${COLUMNS} FROM chunks WHERE doc_id = ? ORDER BY ordinal`);
    this.countQ = db.prepare<[string], { n: number }>('SELECT count(*) AS n FROM chunks WHERE doc_id = ?');
    this.maxOrdinalQ = db.prepare<[string], { n: number }>('SELECT coalesce(max(ordinal), -1) AS n FROM chunks WHERE doc_id = ?');
    this.refreshQ = db.prepare<[string]>('UPDATE chunks SET heading = heading WHERE doc_id = ?');
  }

  /** The document's chunks become these. */
  replace(docId: string, chunks: NewChunk[]): void {
    this.deleteOfDocQ.run(docId);
    this.insert(docId, chunks);
  }
  /** Appends chunks (a PDF's next pages, OCR's regions) without touching the document's others. */
  insert(docId: string, chunks: NewChunk[]): void {
    const records = recordsOn(this.db);
    const packing = records || packingOn(this.db);
    // Trained, when due, before the store's batch began (sqlite-store.ts): never in this transaction.
    const dictionary = records ? dictionariesOf(this.db).current(this.db) : null;
    if (chunks.length === 0) return;
    let rowid = Math.max(Number(readMeta(this.db, LAST_ROWID) ?? 0), this.maxRowidQ.get()!.n);
    for (const c of chunks) {
      const anchor = JSON.stringify(c.anchor);
      rowid++;
      if (!packing || !packable(c.text)) {
        this.insertQ.run({ ...c, rowid, packed: null, doc_id: docId, anchor });
      } else if (records) {
        const packed = packRecord({ heading: c.heading, anchor, text: c.text }, dictionary);
        this.insertQ.run({ ...c, rowid, heading: '', text: '', anchor: '', packed, doc_id: docId });
      } else {
        this.insertQ.run({ ...c, rowid, text: '', packed: packText(c.text), doc_id: docId, anchor });
      }
    }
    writeMeta(this.db, LAST_ROWID, String(rowid));
  }
  byId(id: string): ChunkRow | undefined {
    return this.byIdQ.get(id);
  }
  ofDoc(docId: string): ChunkRow[] {
    return this.ofDocQ.all(docId);
  }
  count(docId: string): number {
    return this.countQ.get(docId)!.n;
  }
  total(): number {
    return this.totalQ.get()!.n;
  }
  /** One person's index: every chunk is theirs. */
  visible(): number {
    return this.total();
  }
  nextOrdinal(docId: string): number {
    return this.maxOrdinalQ.get(docId)!.n + 1;
  }
  /** Re-indexes a document's chunks so their filter tokens (its tags) are current. */
  refreshWords(docId: string): void {
    this.refreshQ.run(docId);
  }
}
