// What the vector half keeps in, and reads of, the SQLite store (store/postgres/vector-side.ts is
// PostgreSQL's): which embedding model's table is live, and which one `kb reindex` is building, in
// meta, so every process agrees; the chunk generation a table was last fully synced at, so reconciling
// an unchanged index costs two reads, not a diff; and the chunks to embed with their documents' filter
// columns (type, language, path, tags as |a|b|).
import type { Db } from './db.js';
import { chunksGeneration } from './db.js';
import { countRows } from './integrity.js';
import { readMeta, writeMeta } from './meta.js';
import type { VectorSidePort } from './vector-port.js';
import { BINDING_KEY, type Binding, type BindingSlot, type FeedRow } from './rows.js';
import { inTransaction } from './tx.js';

export class SqliteVectorSide implements VectorSidePort {
  private readonly idsQ;
  private readonly rowsQ;
  private readonly tagsQ;

  constructor(private readonly db: Db) {
    this.idsQ = db.prepare<[], string>('SELECT id FROM chunks').pluck();
    this.rowsQ = db.prepare<[string], FeedRow>(
      `SELECT c.id, c.doc_id, kb_heading(c.packed, c.heading) AS heading, kb_unpack(c.packed, c.text) AS text, d.type, coalesce(d.lang, '') AS lang, d.path,
         '|' || coalesce((SELECT group_concat(t.name, '|') FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = d.id), '') || '|' AS tags
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    );
    this.tagsQ = db.prepare<[string], { tags: string }>(
      `SELECT '|' || coalesce(group_concat(t.name, '|'), '') || '|' AS tags
       FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ?`,
    );
  }

  private read(slot: BindingSlot): Binding | null {
    const value = readMeta(this.db, BINDING_KEY[slot]);
    return value ? (JSON.parse(value) as Binding) : null;
  }

  private write(slot: BindingSlot, b: Binding | null): void {
    writeMeta(this.db, BINDING_KEY[slot], b ? JSON.stringify(b) : null);
  }

  async binding(slot: BindingSlot = 'live'): Promise<Binding | null> {
    return this.read(slot);
  }

  async setBinding(slot: BindingSlot, b: Binding | null): Promise<void> {
    this.write(slot, b);
  }

  async promote(built: Binding): Promise<void> {
    inTransaction(this.db, () => {
      this.write('live', built);
      this.write('pending', null);
    });
  }

  async markSynced(slot: BindingSlot, table: string, generation: number): Promise<void> {
    inTransaction(this.db, () => {
      const b = this.read(slot);
      if (b?.table === table) this.write(slot, { ...b, synced_generation: generation });
    });
  }

  async generation(): Promise<number> {
    return chunksGeneration(this.db);
  }

  async chunkCount(): Promise<number> {
    return countRows(this.db, 'chunks');
  }

  async chunkIds(): Promise<Set<string>> {
    return new Set(this.idsQ.all());
  }

  async feed(chunkIds: string[]): Promise<FeedRow[]> {
    return this.rowsQ.all(JSON.stringify(chunkIds));
  }

  async tagsOf(docId: string): Promise<string> {
    return this.tagsQ.get(docId)!.tags;
  }

  /** One writer at a time is SQLite's own rule: nothing to wait for here. */
  async embedding<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }
}
