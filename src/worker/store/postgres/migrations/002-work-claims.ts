// PostgreSQL migration 2. Several kb processes share one database: a page waiting for OCR, or a
// recording for its transcript, is claimed by the process that reads it, so two never do the same
// work (the claim lapses if that process dies).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 2,
  name: 'claims on the OCR and transcription queues',
  sql: `
ALTER TABLE ocr_pages ADD COLUMN claimed_at bigint;
ALTER TABLE transcripts ADD COLUMN claimed_at bigint;
`,
};
