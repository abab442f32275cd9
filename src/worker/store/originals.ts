// Where each document's original bytes are: a copy in the blob store, or a reference to the file.
import type { Db } from './db.js';
import type { OriginalRow } from './rows.js';
import type { OriginalsPort, Sync } from './port.js';

export type { OriginalRow } from './rows.js';

export class Originals implements Sync<OriginalsPort> {
  private readonly setQ;
  private readonly ofQ;
  private readonly liveQ;
  private readonly keepsQ;

  constructor(db: Db) {
    this.setQ = db.prepare<[OriginalRow]>(`INSERT INTO originals (doc_id, mode, blob, sha256) VALUES (@doc_id, @mode, @blob, @sha256)
      ON CONFLICT(doc_id) DO UPDATE SET mode = excluded.mode, blob = excluded.blob, sha256 = excluded.sha256`);
    this.ofQ = db.prepare<[string], OriginalRow>('SELECT * FROM originals WHERE doc_id = ?');
    this.liveQ = db.prepare<[], { blob: string }>('SELECT DISTINCT blob FROM originals WHERE blob IS NOT NULL');
    this.keepsQ = db.prepare<[string], number>('SELECT 1 FROM originals WHERE blob = ? LIMIT 1').pluck();
  }

  set(o: OriginalRow): void {
    this.setQ.run(o);
  }
  of(docId: string): OriginalRow | undefined {
    return this.ofQ.get(docId);
  }
  /** The stored copies some document still refers to (gc keeps these). */
  liveBlobs(): Set<string> {
    return new Set(this.liveQ.all().map((r) => r.blob));
  }
  keeps(blob: string): boolean {
    return this.keepsQ.get(blob) !== undefined;
  }
}
