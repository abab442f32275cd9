// Where each document's original bytes are, on PostgreSQL (see store/originals.ts).
import type { OriginalsPort } from '../../port.js';
import type { OriginalRow } from '../../rows.js';
import { first, rows, type Sql } from './sql.js';

export class PgOriginals implements OriginalsPort {
  constructor(private readonly sql: Sql) {}

  async set(o: OriginalRow): Promise<void> {
    await this.sql.query(
      `INSERT INTO originals (doc_id, mode, blob, sha256) VALUES ($1, $2, $3, $4)
       ON CONFLICT (doc_id) DO UPDATE SET mode = excluded.mode, blob = excluded.blob, sha256 = excluded.sha256`,
      [o.doc_id, o.mode, o.blob, o.sha256],
    );
  }
  of(docId: string): Promise<OriginalRow | undefined> {
    return first<OriginalRow>(this.sql, 'SELECT doc_id, mode, blob, sha256 FROM originals WHERE doc_id = $1', [docId]);
  }
  async liveBlobs(): Promise<Set<string>> {
    return new Set(
      (await rows<{ blob: string }>(this.sql, 'SELECT DISTINCT blob FROM originals WHERE blob IS NOT NULL')).map((r) => r.blob),
    );
  }
  async keeps(blob: string): Promise<boolean> {
    return (await first<{ one: number }>(this.sql, 'SELECT 1 AS one FROM originals WHERE blob = $1 LIMIT 1', [blob])) !== undefined;
  }
}
