// Stored originals nothing refers to any more (replaced or removed documents) are deleted, and the
// index file's free pages given back (store/compact.ts).
import { SCHEMA_VERSION } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { compactIndex } from '../store/compact.js';
import type { GcSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type GcResult = z.infer<typeof GcSchema>;

export async function collectGarbage(core: Core): Promise<GcResult> {
  const r = await core.blobs.gc(core.repo.originals.liveBlobs());
  const compacted = core.readOnly ? 0 : compactIndex(core.db);
  return { schema_version: SCHEMA_VERSION, removed_blobs: r.removed, freed_bytes: r.bytes, compacted_bytes: compacted };
}
