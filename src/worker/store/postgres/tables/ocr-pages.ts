// The OCR queue on PostgreSQL (see store/ocr-pages.ts).
import { CLAIM_MS, type OcrPagesPort } from '../../port.js';
import type { OcrJob, OcrPageRow, OcrOutcome } from '../../rows.js';
import { first, rows, type Sql } from './sql.js';

export class PgOcrPages implements OcrPagesPort {
  constructor(private readonly sql: Sql) {}

  async queue(docId: string, pages: number[]): Promise<void> {
    if (pages.length === 0) return;
    await this.sql.query(
      `INSERT INTO ocr_pages (doc_id, page, status) SELECT $1, unnest($2::int[]), 'pending'
       ON CONFLICT (doc_id, page) DO UPDATE SET status = 'pending', confidence = NULL, error = NULL, claimed_at = NULL`,
      [docId, pages],
    );
  }
  async clear(docId: string): Promise<void> {
    await this.sql.query('DELETE FROM ocr_pages WHERE doc_id = $1', [docId]);
  }
  pending(): Promise<OcrJob[]> {
    return rows<OcrJob>(
      this.sql,
      `SELECT o.doc_id, o.page, d.path, d.type, d.content_hash FROM ocr_pages o JOIN documents d ON d.id = o.doc_id
       WHERE o.status = 'pending' ORDER BY d.path, o.page`,
    );
  }
  async finish(r: OcrOutcome): Promise<void> {
    await this.sql.query(
      'UPDATE ocr_pages SET status = $1, confidence = $2, error = $3, unreadable_with = $4 WHERE doc_id = $5 AND page = $6',
      [r.status, r.confidence, r.error, r.unreadable_with ?? null, r.doc_id, r.page],
    );
  }
  /** One statement: of two processes claiming a page at once, the second waits for the first's row and finds it taken. */
  async claim(docId: string, page: number): Promise<boolean> {
    const now = Date.now();
    const r = await this.sql.query(
      `UPDATE ocr_pages SET claimed_at = $3 WHERE doc_id = $1 AND page = $2 AND status = 'pending'
         AND (claimed_at IS NULL OR claimed_at < $4)`,
      [docId, page, now, now - CLAIM_MS],
    );
    return r.rowCount === 1;
  }
  async unreadable(): Promise<{ pages: number; docs: number }> {
    return (
      (await first<{ pages: number; docs: number }>(
        this.sql,
        'SELECT count(*) AS pages, count(DISTINCT doc_id) AS docs FROM ocr_pages WHERE unreadable_with IS NOT NULL',
      )) ?? { pages: 0, docs: 0 }
    );
  }
  async retryUnreadable(languages: string): Promise<string[]> {
    const r = await rows<{ doc_id: string }>(
      this.sql,
      `UPDATE ocr_pages SET status = 'pending', error = NULL, unreadable_with = NULL
       WHERE status = 'failed' AND unreadable_with IS NOT NULL AND unreadable_with <> $1 RETURNING doc_id`,
      [languages],
    );
    return [...new Set(r.map((x) => x.doc_id))];
  }
  async restore(docId: string, pages: OcrPageRow[]): Promise<void> {
    if (pages.length === 0) return;
    await this.sql.query(
      `INSERT INTO ocr_pages (doc_id, page, status, confidence, error, unreadable_with)
       SELECT $1, u.page, u.status, u.confidence, u.error, u.unreadable_with
       FROM unnest($2::int[], $3::text[], $4::float8[], $5::text[], $6::text[]) AS u (page, status, confidence, error, unreadable_with)
       ON CONFLICT (doc_id, page) DO UPDATE SET status = excluded.status, confidence = excluded.confidence, error = excluded.error,
         unreadable_with = excluded.unreadable_with`,
      [
        docId,
        pages.map((p) => p.page),
        pages.map((p) => p.status),
        pages.map((p) => p.confidence),
        pages.map((p) => p.error),
        pages.map((p) => p.unreadable_with),
      ],
    );
  }
  of(docId: string): Promise<OcrPageRow[]> {
    return rows<OcrPageRow>(
      this.sql,
      'SELECT page, status, confidence, error, unreadable_with FROM ocr_pages WHERE doc_id = $1 ORDER BY page',
      [docId],
    );
  }
}
