// Stored originals nothing refers to any more (replaced or removed documents) are deleted, and the
// dropped files' copies in uploads/ no document is read from, the index
// file's free pages given back (store/compact.ts), and the files of the vector table's replaced
// versions deleted.
import { SCHEMA_VERSION } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { join } from 'node:path';
import { compactIndex } from '../store/compact.js';
import { bytesUnder } from '../read/disk-usage.js';
import { collectUploads } from '../uploads.js';
import type { VectorService } from '../vectors/service.js';
import type { GcSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type GcResult = z.infer<typeof GcSchema>;

export async function collectGarbage(core: Core, vectors: VectorService): Promise<GcResult> {
  const r = await core.blobs.gc(await core.store.tables.originals.liveBlobs());
  const uploads = core.readOnly
    ? { removed: 0, bytes: 0 }
    : await collectUploads(core.dataDir, async (path) => (await core.store.tables.documents.byPath(path)) !== undefined);
  const compacted = core.readOnly || !core.sqlite ? 0 : compactIndex(core.sqlite);
  let vectorBytes = 0;
  if (!core.readOnly) {
    const dir = join(core.dataDir, 'vectors');
    const before = await bytesUnder(dir);
    await vectors.forgetOldVersions();
    vectorBytes = Math.max(0, before - (await bytesUnder(dir)));
  }
  return {
    schema_version: SCHEMA_VERSION,
    removed_blobs: r.removed,
    freed_bytes: r.bytes + uploads.bytes,
    removed_uploads: uploads.removed,
    compacted_bytes: compacted,
    vector_bytes: vectorBytes,
  };
}
