// The dictionaries chunks are packed against (packed-chunks.ts, format 2): trained on the index's
// own chunks (train-dictionary.ts) once it holds a thousand, and again each time it has grown
// eightfold, so the newest fits what the library has become. A dictionary is never changed or
// removed once written — chunks name it — so a connection keeps every one it has read. One written by
// another process since is read through a connection of its own: a SQL function (kb_unpack, inside a
// statement) cannot run a statement on the connection that calls it.
import Database from 'better-sqlite3';
import type { PackDictionary } from './packed-chunks.js';
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

  constructor(private readonly file: string) {}

  /** The dictionary chunks are packed with now (null: the index is too small for one yet). */
  current(db: Connection): PackDictionary | null {
    if (!this.loaded) this.load(db);
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
    if (!found) throw new Error(`a chunk is packed with dictionary ${id}, which this index does not hold: the index is damaged`);
    return found;
  }

  /** Trains a new dictionary when the index has outgrown the newest (or has none and holds enough). */
  refresh(db: Connection): void {
    const top = (db.prepare('SELECT max(rowid) AS top FROM chunks').get() as { top: number | null }).top ?? 0;
    if (!this.due(db, top)) return;
    // Another process may have trained one since this connection last looked.
    this.load(db);
    if (!this.due(db, top)) return;
    const sample = sampleRecords(db, top);
    if (sample.length < FIRST_AT / 2) return;
    const bytes = trainDictionary(sample);
    const id = Number(
      db.prepare('INSERT INTO pack_dictionaries(dict, chunks, made_at) VALUES (?, ?, ?)').run(bytes, top, Date.now()).lastInsertRowid,
    );
    this.byId.set(id, bytes);
    this.newest = { id, bytes, chunks: top };
  }

  private due(db: Connection, top: number): boolean {
    if (!this.loaded) this.load(db);
    return this.newest ? top >= GROWTH * this.newest.chunks : top >= FIRST_AT;
  }

  private load(db: Connection): void {
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

/** Up to SAMPLE chunks' records (heading, anchor, text), evenly spread over the rowids. */
function sampleRecords(db: Connection, top: number): string[] {
  const at = db.prepare(
    `SELECT rowid, kb_heading(packed, heading) AS heading, kb_anchor(packed, anchor) AS anchor, kb_unpack(packed, text) AS text
     FROM chunks WHERE rowid >= ? ORDER BY rowid LIMIT 1`,
  );
  const out: string[] = [];
  let last = 0;
  for (let i = 0; i < SAMPLE; i++) {
    const r = at.get(Math.max(last + 1, Math.floor((top * i) / SAMPLE))) as
      { rowid: number; heading: string; anchor: string; text: string } | undefined;
    if (!r) break;
    last = r.rowid;
    out.push(r.heading + r.anchor + r.text);
  }
  return out;
}
