// The wire format of an index's health: kb status (what it holds and what it can do) and kb doctor
// (each check and its verdict). Re-exported by wire.ts, where every caller finds them.
import { z } from 'zod';
import { versioned } from './wire-base.js';

/** `kb status` / the MCP `status` tool: what this index holds and what it can do. */
export const KbStatusSchema = versioned({
  data_dir: z.string(),
  /** Where the index lives: the data dir's SQLite file, or a PostgreSQL database (its URL without a password). */
  store: z.object({ kind: z.enum(['sqlite', 'postgres']), where: z.string() }),
  documents: z.number().int().nonnegative(),
  chunks: z.number().int().nonnegative(),
  collections: z.array(
    z.object({
      name: z.string(),
      root: z.string(),
      documents: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      waiting: z.number().int().nonnegative(),
    }),
  ),
  embedding: z.object({ model: z.string(), installed: z.boolean() }),
  speech: z.object({ model: z.string(), installed: z.boolean() }),
  llm: z.object({ host: z.string(), model: z.string(), status: z.enum(['ok', 'warn']), detail: z.string() }),
  /** The folder of kb's log files, one per process (kb logs prints them). */
  logs: z.string(),
  /** Bytes on disk under the data dir: the SQLite index, the vectors, kept originals, models, the rest. */
  disk: z
    .object({
      total: z.number().int().nonnegative(),
      index: z.number().int().nonnegative(),
      vectors: z.number().int().nonnegative(),
      originals: z.number().int().nonnegative(),
      models: z.number().int().nonnegative(),
      /** Files dropped in a browser, kept by kb serve (uploads/). */
      uploads: z.number().int().nonnegative().optional(),
      /** OCR language data unpacked for tesseract (ocr/). */
      ocr: z.number().int().nonnegative().optional(),
      /** The rest: logs, temporary files. The parts add up to total. */
      other: z.number().int().nonnegative().optional(),
    })
    .optional(),
});
export type KbStatus = z.infer<typeof KbStatusSchema>;

export const DoctorCheckSchema = z.object({ name: z.string(), status: z.enum(['ok', 'warn', 'fail']), detail: z.string() });
export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;

export const DoctorReportSchema = versioned({
  ok: z.boolean(),
  data_dir: z.string(),
  checks: z.array(DoctorCheckSchema),
});
export type DoctorReport = z.infer<typeof DoctorReportSchema>;
