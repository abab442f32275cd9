// What every part of the wire format builds on: its version, the envelope of a top-level document,
// and the status of one half of a search or an ingest (ok, or unavailable and why).
import { z } from 'zod';

export const SCHEMA_VERSION = 1 as const;

/** A top-level document of the wire format: its fields, after `schema_version`. */
export function versioned<T extends z.ZodRawShape>(shape: T) {
  return z.object({ schema_version: z.literal(SCHEMA_VERSION), ...shape });
}

export const ComponentStatusSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  reason: z.string().optional(),
});
