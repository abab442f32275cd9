// Why the latest attempt to read a path failed, on PostgreSQL (see store/ingest-errors.ts).
import type { IngestErrorsPort } from '../../port.js';
import type { IngestErrorRow } from '../../rows.js';
import { rows, type Sql } from './sql.js';

export class PgIngestErrors implements IngestErrorsPort {
  constructor(private readonly sql: Sql) {}

  async record(path: string, code: string, message: string): Promise<void> {
    await this.sql.query('INSERT INTO ingest_errors (path, code, message, at) VALUES ($1, $2, $3, $4)', [path, code, message, Date.now()]);
  }
  async clear(path: string): Promise<void> {
    await this.sql.query('DELETE FROM ingest_errors WHERE path = $1', [path]);
  }
  of(path: string): Promise<IngestErrorRow[]> {
    return rows<IngestErrorRow>(this.sql, 'SELECT path, code, message, at FROM ingest_errors WHERE path = $1 ORDER BY id', [path]);
  }
}
