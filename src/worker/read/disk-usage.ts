// How much of the disk a data dir takes, by part, for the app's Status view and kb status.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Bytes of every file under `dir` (symlinks not followed); 0 when it does not exist. */
async function bytesUnder(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = 0;
  for (const e of entries) {
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

export async function diskUsage(dataDir: string): Promise<{
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
  const [vectors, originals, models, uploads, ocr, total] = await Promise.all([
    bytesUnder(join(dataDir, 'vectors')),
    bytesUnder(join(dataDir, 'blobs')),
    bytesUnder(join(dataDir, 'models')),
    bytesUnder(join(dataDir, 'uploads')),
    bytesUnder(join(dataDir, 'ocr')),
    bytesUnder(dataDir),
  ]);
  const index = sqlite.reduce((a, b) => a + b, 0);
  // Every part is named, so the parts the Status view lists add up to the total it says.
  const other = Math.max(0, total - index - vectors - originals - models - uploads - ocr);
  return { total, index, vectors, originals, models, uploads, ocr, other };
}
