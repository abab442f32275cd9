// How much of the disk a data dir takes, by part, for the app's Status view and kb status.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of every file under `dir` (symlinks not followed) but in the folders `skip` names; 0 when it does not exist. */
export async function bytesUnder(dir: string, skip: ReadonlySet<string> = new Set()): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of entries) {
    if (skip.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) n += await bytesUnder(p);
    else if (e.isFile())
      n += await stat(p).then(
        (s) => s.size,
        () => 0,
      );
  }
  return n;
}

/**
 * `originals`: the bytes of the stored copies, as the index records them — a heavy library keeps
 * hundreds of thousands of them, and walking blobs/ took seconds.
 */
export async function diskUsage(
  dataDir: string,
  originals: number,
): Promise<{
  total: number;
  index: number;
  vectors: number;
  originals: number;
  models: number;
  uploads: number;
  ocr: number;
  other: number;
}> {
  const sqlite = await Promise.all(
    ['kb.sqlite', 'kb.sqlite-wal', 'kb.sqlite-shm'].map((f) =>
      stat(join(dataDir, f)).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  // models/ holds the embedding models and models/whisper/ the speech models.
  const [vectors, models, uploads, ocr, rest] = await Promise.all([
    bytesUnder(join(dataDir, 'vectors')),
    bytesUnder(join(dataDir, 'models')),
    bytesUnder(join(dataDir, 'uploads')),
    bytesUnder(join(dataDir, 'ocr')),
    bytesUnder(dataDir, new Set(['blobs'])),
  ]);
  const total = rest + originals;
  const index = sqlite.reduce((a, b) => a + b, 0);
  // Every part is named, so the parts the Status view lists add up to the total it says.
  const other = Math.max(0, total - index - vectors - originals - models - uploads - ocr);
  return { total, index, vectors, originals, models, uploads, ocr, other };
}
