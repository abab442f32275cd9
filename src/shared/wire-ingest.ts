// The wire format of adding documents: an ingest's summary and the progress it reports (each file as it
// finishes), and a reindex's. Re-exported by wire.ts, where every caller finds them.
import { z } from 'zod';
import { ERROR_CODES } from './errors.js';
import { ComponentStatusSchema, versioned } from './wire-base.js';

export const IngestErrorSchema = z.object({ path: z.string(), code: z.enum(ERROR_CODES), message: z.string() });
export type IngestError = z.infer<typeof IngestErrorSchema>;

export const IngestSkipSchema = z.object({ path: z.string(), reason: z.string() });
export type IngestSkip = z.infer<typeof IngestSkipSchema>;

/** Audio and video read by the speech model in one pass; waiting: files that wait for a speech model. */
export const TranscribedSchema = z.object({
  files: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  pending: z.number().int().nonnegative(),
  waiting: z.number().int().nonnegative(),
  /** With files waiting: the speech model they wait for (the configured one). */
  speech_model: z.string().optional(),
});
export type Transcribed = z.infer<typeof TranscribedSchema>;

export const IngestSummarySchema = versioned({
  added: z.number().int().nonnegative(),
  updated: z.number().int().nonnegative(),
  unchanged: z.number().int().nonnegative(),
  moved: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** Chunks given vectors in this run (0 when no embedding model is installed). */
  embedded: z.number().int().nonnegative().optional(),
  /** Pages (and images) read by OCR in this run, after the text layer was indexed. */
  ocr: z
    .object({ pages: z.number().int().nonnegative(), failed: z.number().int().nonnegative(), pending: z.number().int().nonnegative() })
    .optional(),
  /** Audio and video read by the speech model in this run. */
  transcribed: TranscribedSchema.optional(),
  /** Whether chunks get vectors, and if not, why (no model, or vectors of another model). */
  vector: ComponentStatusSchema.optional(),
  skipped: z.array(IngestSkipSchema),
  /** One per file counted in `failed`: what went wrong with it. */
  errors: z.array(IngestErrorSchema),
  /**
   * Problems that did not make a file fail: pages OCR could not read in a document that is otherwise
   * indexed, or what a waiting file waits for (no OCR data, no ffmpeg, no speech model).
   */
  warnings: z.array(IngestErrorSchema),
  took_ms: z.number().nonnegative(),
  /** Cancelled before the end: what was read stays indexed, the rest was not touched. */
  cancelled: z.boolean().optional(),
  /** Cancelled: files found but not read, and new files whose text (scan, recording) was not read yet — none of them indexed. */
  not_read: z.number().int().nonnegative().optional(),
  /** Which files were not read (the first 200): a summary names them, and can add them again. */
  not_read_paths: z.array(z.string()).optional(),
});
export type IngestSummary = z.infer<typeof IngestSummarySchema>;

export const IngestProgressSchema = z.object({
  /** scan: finding files; ingest: parsing and indexing words; ocr: reading images and scanned pages (done/total in pages); transcribe: audio and video (done/total in seconds of sound); embed: making vectors (done/total in chunks). */
  phase: z.enum(['scan', 'ingest', 'ocr', 'transcribe', 'embed']),
  done: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  path: z.string().optional(),
  /** ingest, a long PDF: its pages read and searchable so far (they are committed a window at a time). */
  pages: z.number().int().nonnegative().optional(),
  /** ingest: a file just finished, and how — so a list of files shows what really became of each. */
  finished: z
    .object({
      path: z.string(),
      /** waiting: written, its words still to be read (OCR, transcription) — it may yet fail. */
      outcome: z.enum(['added', 'updated', 'unchanged', 'moved', 'waiting', 'failed', 'skipped']),
      /** Why it failed or was skipped. */
      message: z.string().optional(),
    })
    .optional(),
});
export type IngestProgress = z.infer<typeof IngestProgressSchema>;

export const ReindexResultSchema = versioned({
  model: z.string(),
  /** The model the vectors belonged to before, if any. */
  previous: z.string().nullable(),
  embedded: z.number().int().nonnegative(),
  /** Vectors an interrupted reindex had already made, kept and not embedded again. */
  resumed: z.number().int().nonnegative(),
  /** Stopped before the switch: searches still use the previous vectors; run reindex again to resume. */
  cancelled: z.boolean(),
  /** The data dir's config.yaml, when reindex --model changed embedding.model in it. */
  config_updated: z.string().nullable(),
  took_ms: z.number().nonnegative(),
});
export type ReindexResult = z.infer<typeof ReindexResultSchema>;

export const ReindexProgressSchema = z.object({ done: z.number().int().nonnegative(), total: z.number().int().nonnegative() });
export type ReindexProgress = z.infer<typeof ReindexProgressSchema>;
