// The OCR queue: pages (an image is page 1) waiting to be read from pixels, and how each went.
import type { Db } from './db.js';
import type { OcrJob, OcrPageRow, OcrOutcome } from './rows.js';
import type { OcrPagesPort, Sync } from './port.js';

export type { OcrJob, OcrPageRow } from './rows.js';

export class OcrPages implements Sync<OcrPagesPort> {
  private readonly queueQ;
  private readonly clearQ;
  private readonly pendingQ;
  private readonly finishQ;
  private readonly ofQ;
  private readonly retryQ;
  private readonly unreadableQ;
  private readonly waitsQ;
  private readonly restoreQ;

  constructor(db: Db) {
    this.queueQ = db.prepare<[string, number]>(
      "INSERT INTO ocr_pages (doc_id, page, status) VALUES (?, ?, 'pending') ON CONFLICT(doc_id, page) DO UPDATE SET status = 'pending', confidence = NULL, error = NULL",
    );
    this.clearQ = db.prepare<[string]>('DELETE FROM ocr_pages WHERE doc_id = ?');
    this.restoreQ = db.prepare<[string, number, string, number | null, string | null, string | null]>(
      'INSERT OR REPLACE INTO ocr_pages (doc_id, page, status, confidence, error, unreadable_with) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.waitsQ = db.prepare<[string, number], { one: number }>(
      "SELECT 1 AS one FROM ocr_pages WHERE doc_id = ? AND page = ? AND status = 'pending'",
    );
    this.pendingQ = db.prepare<
      [],
      OcrJob
    >(`SELECT o.doc_id, o.page, d.path, d.type, d.content_hash FROM ocr_pages o JOIN documents d ON d.id = o.doc_id
      WHERE o.status = 'pending' ORDER BY d.path, o.page`);
    this.finishQ = db.prepare<[OcrPageRow & { doc_id: string }]>(
      'UPDATE ocr_pages SET status = @status, confidence = @confidence, error = @error, unreadable_with = @unreadable_with WHERE doc_id = @doc_id AND page = @page',
    );
    this.ofQ = db.prepare<[string], OcrPageRow>(
      'SELECT page, status, confidence, error, unreadable_with FROM ocr_pages WHERE doc_id = ? ORDER BY page',
    );
    this.unreadableQ = db.prepare<[], { pages: number; docs: number }>(
      'SELECT count(*) AS pages, count(DISTINCT doc_id) AS docs FROM ocr_pages WHERE unreadable_with IS NOT NULL',
    );
    this.retryQ = db.prepare<[string], { doc_id: string }>(
      "UPDATE ocr_pages SET status = 'pending', error = NULL, unreadable_with = NULL WHERE status = 'failed' AND unreadable_with IS NOT NULL AND unreadable_with <> ? RETURNING doc_id",
    );
  }

  queue(docId: string, pages: number[]): void {
    for (const p of pages) this.queueQ.run(docId, p);
  }
  clear(docId: string): void {
    this.clearQ.run(docId);
  }
  pending(): OcrJob[] {
    return this.pendingQ.all();
  }
  finish(r: OcrOutcome): void {
    this.finishQ.run({ ...r, unreadable_with: r.unreadable_with ?? null });
  }
  /** Whether the page still waits. One process writes a SQLite index at a time: no claim to record. */
  claim(docId: string, page: number): boolean {
    return this.waitsQ.get(docId, page) !== undefined;
  }
  /** Pages (and their documents) that need an OCR language which is not installed. */
  unreadable(): { pages: number; docs: number } {
    return this.unreadableQ.get() ?? { pages: 0, docs: 0 };
  }
  /** Pages unreadable with other languages than these go back in the queue; their documents' ids. */
  retryUnreadable(languages: string): string[] {
    return [...new Set(this.retryQ.all(languages).map((r) => r.doc_id))];
  }
  of(docId: string): OcrPageRow[] {
    return this.ofQ.all(docId);
  }
  restore(docId: string, pages: OcrPageRow[]): void {
    for (const p of pages) this.restoreQ.run(docId, p.page, p.status, p.confidence, p.error, p.unreadable_with);
  }
}
