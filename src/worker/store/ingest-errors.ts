// Why the latest attempt to read a path failed (a success clears it): kb inspect and kb ls show it.
import type { Db } from './db.js';
import type { IngestErrorRow } from './rows.js';
import type { IngestErrorsPort, Sync } from './port.js';

export type { IngestErrorRow } from './rows.js';

export class IngestErrors implements Sync<IngestErrorsPort> {
  private readonly recordQ;
  private readonly clearQ;
  private readonly ofQ;

  constructor(db: Db) {
    this.recordQ = db.prepare<[string, string, string, number]>('INSERT INTO ingest_errors (path, code, message, at) VALUES (?, ?, ?, ?)');
    this.clearQ = db.prepare<[string]>('DELETE FROM ingest_errors WHERE path = ?');
    this.ofQ = db.prepare<[string], IngestErrorRow>('SELECT path, code, message, at FROM ingest_errors WHERE path = ? ORDER BY id');
  }

  record(path: string, code: string, message: string): void {
    this.recordQ.run(path, code, message, Date.now());
  }
  clear(path: string): void {
    this.clearQ.run(path);
  }
  of(path: string): IngestErrorRow[] {
    return this.ofQ.all(path);
  }
}
