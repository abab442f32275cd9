// The dictionaries chunks are packed against (packed-chunks.ts, format 2): trained on the index's
// own chunks (train-dictionary.ts) once it holds a thousand, and again each time it has grown
// eightfold, so the newest fits what the library has become. A dictionary is never changed or
// removed once written — chunks name it — so a connection keeps every one it has read. One written by
// another process since is read through a connection of its own: a SQL function (kb_unpack, inside a
// statement) cannot run a statement on the connection that calls it.
//
// A dictionary is trained only outside any transaction, and committed on its own: trained inside a
// document's savepoint that then rolled back (a PDF that failed after its old chunks were cleared),
// it was gone from the index while this connection went on packing chunks with it, and every one of
// them was unreadable after a restart. The store trains before it opens a batch (refresh), and what
// is known is read again after any rollback (rollbacks.ts).
import Database from 'better-sqlite3';
import { dictionaryOf, type PackDictionary, unpackChunk } from './packed-chunks.js';
import { rollbacks } from './rollbacks.js';
import { trainDictionary } from './train-dictionary.js';

/** Chunks an index holds before its first dictionary: fewer are too few to learn from. */
const FIRST_AT = 1000;
/** Growth after which a new dictionary is trained. */
const GROWTH = 8;
/** Chunks a dictionary is trained on, spread over the whole index. */
const SAMPLE = 1000;

type Connection = Database.Database;

export class PackDictionaries {
  private readonly byId = new Map<number, Buffer>();
  /** The newest dictionary and the highest rowid when it was trained. */
  private newest: (PackDictionary & { chunks: number }) | null = null;
  private loaded = false;
  /** The connection's rollbacks when the newest was read. */
  private rollbacksSeen = 0;

  constructor(private readonly file: string) {}

  /** The dictionary chunks are packed with now (null: the index is too small for one yet). */
  current(db: Connection): PackDictionary | null {
    if (!this.loaded || this.rollbacksSeen !== rollbacks(db)) this.load(db);
    return this.newest;
  }

  /** A dictionary by id, for unpacking: callable inside a statement. */
  bytes(id: number): Buffer {
    const known = this.byId.get(id);
    if (known) return known;
    if (this.file !== '' && this.file !== ':memory:') {
      const side = new Database(this.file, { readonly: true, fileMustExist: true });
      try {
        this.read(side);
      } finally {
        side.close();
      }
    }
    const found = this.byId.get(id);
    if (!found)
      throw new Error(
        `a chunk is packed with dictionary ${id}, which this index does not hold: the index is damaged (kb doctor --fix reads those documents again from their files)`,
      );
    return found;
  }

  /**
   * Trains a new dictionary when the index has outgrown the newest (or has none and holds enough),
   * in a transaction of its own; inside a caller's transaction it waits for the next call outside one.
   */
  refresh(db: Connection): void {
    if (db.inTransaction || !this.due(db, topRowid(db))) return;
    db.transaction(() => {
      // Another process may have trained one since this connection last looked.
      this.load(db);
      const top = topRowid(db);
      if (!this.due(db, top)) return;
      const sample = sampleRecords(db, top, (id) => this.bytes(id));
      if (sample.length < FIRST_AT / 2) return;
      const bytes = trainDictionary(sample);
      // Never an id some chunk names already: such a chunk would inflate against the wrong bytes
      // without a word (raw deflate has no checksum). An index an older kb damaged has them.
      const id = Math.max(this.newest?.id ?? 0, highestNamed(db)) + 1;
      db.prepare('INSERT INTO pack_dictionaries(id, dict, chunks, made_at) VALUES (?, ?, ?, ?)').run(id, bytes, top, Date.now());
      this.byId.set(id, bytes);
      this.newest = { id, bytes, chunks: top };
    }).immediate();
  }

  private due(db: Connection, top: number): boolean {
    this.current(db);
    return this.newest ? top >= GROWTH * this.newest.chunks : top >= FIRST_AT;
  }

  private load(db: Connection): void {
    this.newest = null;
    this.rollbacksSeen = rollbacks(db);
    this.read(db);
    this.loaded = true;
  }

  private read(db: Connection): void {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'pack_dictionaries'").get();
    if (!exists) return;
    const rows = db.prepare('SELECT id, dict, chunks FROM pack_dictionaries ORDER BY id').all() as {
      id: number;
      dict: Buffer;
      chunks: number;
    }[];
    for (const r of rows) this.byId.set(r.id, r.dict);
    const last = rows[rows.length - 1];
    if (last) this.newest = { id: last.id, bytes: last.dict, chunks: last.chunks };
  }
}

/** The highest dictionary id a chunk names (one scan of the chunks: a dictionary is trained a handful of times in an index's life). */
function highestNamed(db: Connection): number {
  const first = db.prepare("SELECT max(substr(packed, 2, 1)) AS b FROM chunks WHERE substr(packed, 1, 1) = x'02'").get() as {
    b: Buffer | null;
  };
  const b = first.b?.[0] ?? 0;
  if (b < 0x80) return b;
  // Ids of two bytes and more (a varint's first byte has its top bit set): read them all.
  let max = 0;
  const rows = db.prepare("SELECT packed FROM chunks WHERE substr(packed, 1, 1) = x'02'").pluck().iterate() as Iterable<Buffer>;
  for (const packed of rows) max = Math.max(max, dictionaryOf(packed) ?? 0);
  return max;
}

function topRowid(db: Connection): number {
  return (db.prepare('SELECT max(rowid) AS top FROM chunks').get() as { top: number | null }).top ?? 0;
}

/**
 * Up to SAMPLE chunks' records (heading, anchor, text), evenly spread over the rowids. A chunk that
 * does not read back (a damaged index, until kb doctor --fix) is passed over: it must not stop every
 * write that trains first.
 */
function sampleRecords(db: Connection, top: number, dictionary: (id: number) => Buffer): string[] {
  const at = db.prepare(`SELECT rowid, heading, anchor, text, packed FROM chunks WHERE rowid >= ? ORDER BY rowid LIMIT 1`);
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < SAMPLE; i++) {
    const r = at.get(Math.max(last + 1, Math.floor((top * i) / SAMPLE))) as
      { rowid: number; heading: string; anchor: string; text: string; packed: Buffer | null } | undefined;
    if (!r) break;
    last = r.rowid;
    if (!r.packed) {
      out.push(r.heading + r.anchor + r.text);
      continue;
    }
    try {
      const u = unpackChunk(r.packed, dictionary);
      out.push((u.heading ?? r.heading) + (u.anchor ?? r.anchor) + u.text);
    } catch {
      // unreadable: not learnt from
    }
  }
  return out;
}
