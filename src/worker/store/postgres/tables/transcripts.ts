// The transcription queue on PostgreSQL (see store/transcripts.ts).
import { CLAIM_MS, type TranscriptsPort } from '../../port.js';
import type { TranscriptJob, TranscriptRow, TranscriptOutcome } from '../../rows.js';
import { first, rows, type Sql } from './sql.js';

export class PgTranscripts implements TranscriptsPort {
  constructor(private readonly sql: Sql) {}

  async queue(docId: string, status: 'waiting' | 'pending'): Promise<void> {
    await this.sql.query(
      `INSERT INTO transcripts (doc_id, status) VALUES ($1, $2)
       ON CONFLICT (doc_id) DO UPDATE SET status = excluded.status, model = NULL, language = NULL, segments = NULL, error = NULL,
         claimed_at = NULL`,
      [docId, status],
    );
  }
  pending(): Promise<TranscriptJob[]> {
    return rows<TranscriptJob>(
      this.sql,
      `SELECT t.doc_id, d.path, d.content_hash, d.title FROM transcripts t JOIN documents d ON d.id = t.doc_id
       WHERE t.status = 'pending' ORDER BY d.path`,
    );
  }
  async waiting(): Promise<Set<string>> {
    return new Set(
      (await rows<{ doc_id: string }>(this.sql, "SELECT doc_id FROM transcripts WHERE status = 'waiting'")).map((r) => r.doc_id),
    );
  }
  /** As PgOcrPages.claim. */
  async claim(docId: string): Promise<boolean> {
    const now = Date.now();
    const r = await this.sql.query(
      `UPDATE transcripts SET claimed_at = $2 WHERE doc_id = $1 AND status = 'pending' AND (claimed_at IS NULL OR claimed_at < $3)`,
      [docId, now, now - CLAIM_MS],
    );
    return r.rowCount === 1;
  }
  /** One statement: the documents say they wait no more, and their transcripts are queued. */
  async wake(): Promise<void> {
    await this.sql.query(
      `WITH woken AS (UPDATE transcripts SET status = 'pending' WHERE status = 'waiting' RETURNING doc_id)
       UPDATE documents SET error = NULL, updated_at = $1 WHERE id IN (SELECT doc_id FROM woken)`,
      [Date.now()],
    );
  }
  async finish(r: TranscriptOutcome): Promise<void> {
    await this.sql.query('UPDATE transcripts SET status = $1, model = $2, language = $3, segments = $4, error = $5 WHERE doc_id = $6', [
      r.status,
      r.model,
      r.language,
      r.segments,
      r.error,
      r.doc_id,
    ]);
  }
  async restore(docId: string, t: TranscriptRow): Promise<void> {
    await this.sql.query(
      `INSERT INTO transcripts (doc_id, status, model, language, segments, error) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (doc_id) DO UPDATE SET status = excluded.status, model = excluded.model, language = excluded.language,
         segments = excluded.segments, error = excluded.error`,
      [docId, t.status, t.model, t.language, t.segments, t.error],
    );
  }
  of(docId: string): Promise<TranscriptRow | undefined> {
    return first<TranscriptRow>(this.sql, 'SELECT status, model, language, segments, error FROM transcripts WHERE doc_id = $1', [docId]);
  }
}
