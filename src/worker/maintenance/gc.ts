// Stored originals nothing refers to any more (replaced or removed documents) are deleted.
import { SCHEMA_VERSION } from '../../shared/wire.js';
import type { Core } from '../core.js';

export interface GcResult {
  schema_version: typeof SCHEMA_VERSION;
  removed_blobs: number;
  freed_bytes: number;
}

export async function collectGarbage(core: Core): Promise<GcResult> {
  const r = await core.blobs.gc(core.repo.originals.liveBlobs());
  return { schema_version: SCHEMA_VERSION, removed_blobs: r.removed, freed_bytes: r.bytes };
}
