// The OCR queue: pages (an image is page 1) waiting to be read from pixels, and how each went.
import type { Db } from './db.js';

/** A page waiting for OCR. */
export interface OcrJob {
  doc_id: string;
  page: number;
  path: string;
  type: string;
  content_hash: string;
}

export interface OcrPageRow {
  page: number;
  status: string;
  confidence: number | null;
  error: string | null;
}

export class OcrPages {
  private readonly queueQ;
  private readonly clearQ;
  private readonly pendingQ;
  private readonly finishQ;
  private readonly ofQ;

  constructor(db: Db) {
    this.queueQ = db.prepare<[string, number]>(
      "INSERT INTO ocr_pages (doc_id, page, status) VALUES (?, ?, 'pending') ON CONFLICT(doc_id, page) DO UPDATE SET status = 'pending', confidence = NULL, error = NULL",
    );
    this.clearQ = db.prepare<[string]>('DELETE FROM ocr_pages WHERE doc_id = ?');
    this.pendingQ = db.prepare<[], OcrJob>(`SELECT o.doc_id, o.page, d.path, d.type, d.content_hash FROM ocr_pages o JOIN documents d ON d.id = o.doc_id
      WHERE o.status = 'pending' ORDER BY d.path, o.page`);
    this.finishQ = db.prepare<[OcrPageRow & { doc_id: string }]>(
      'UPDATE ocr_pages SET status = @status, confidence = @confidence, error = @error WHERE doc_id = @doc_id AND page = @page',
    );
    this.ofQ = db.prepare<[string], OcrPageRow>('SELECT page, status, confidence, error FROM ocr_pages WHERE doc_id = ? ORDER BY page');
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
  finish(r: { doc_id: string; page: number; status: 'done' | 'failed'; confidence: number | null; error: string | null }): void {
    this.finishQ.run(r);
  }
  of(docId: string): OcrPageRow[] {
    return this.ofQ.all(docId);
  }
}
