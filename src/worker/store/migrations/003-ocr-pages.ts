// Migration 3. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 3,
  name: 'OCR pages: what needs reading from pixels, and how it went',
  sql: `
-- A page of a scanned PDF (or an image, as page 1) whose text comes from OCR. Pending rows are what
-- the OCR pass still has to do; it runs after the text layer of a batch is indexed and survives
-- interruption. Done rows remember the confidence; kb inspect doc shows them.
CREATE TABLE ocr_pages (
  doc_id     TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
  page       INTEGER NOT NULL,
  status     TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  confidence REAL,
  error      TEXT,
  PRIMARY KEY (doc_id, page)
) STRICT;
CREATE INDEX ocr_pages_pending ON ocr_pages(status) WHERE status = 'pending';
`,
};
