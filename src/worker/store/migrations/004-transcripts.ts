// Migration 4. Shipped: never edit it; a change is a new migration (index.ts lists them).
import type { Migration } from './migration.js';

export const migration: Migration = {
  version: 4,
  name: 'transcripts: audio and video waiting for, or read by, the speech model',
  sql: `
-- One row per audio or video document. waiting: no speech model is installed (kb ls says how to get
-- one); pending: to be read by the next transcription pass (after a batch's text is indexed, and on
-- open); done: segments holds the timed transcript (JSON [{start, end, text}]); failed: error says why.
CREATE TABLE transcripts (
  doc_id   TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
  status   TEXT NOT NULL CHECK (status IN ('waiting', 'pending', 'done', 'failed')),
  model    TEXT,
  language TEXT,
  segments TEXT,
  error    TEXT
) STRICT;
CREATE INDEX transcripts_queue ON transcripts(status) WHERE status IN ('waiting', 'pending');
`,
};
