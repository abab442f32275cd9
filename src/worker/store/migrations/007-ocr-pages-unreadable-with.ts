// Migration 7. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 7,
  name: 'ocr_pages.unreadable_with: pages OCR could not read with the languages installed then',
  sql: `
-- Set (to ocr.languages at the time) on a page read with too little confidence to index: its script
-- needs language data that was not installed. When ocr.languages changes, the next OCR pass reads it again.
ALTER TABLE ocr_pages ADD COLUMN unreadable_with TEXT;
`,
};
