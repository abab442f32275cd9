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
    else if (e.isFile()) n += await stat(p).then((s) => s.size, () => 0);
  }
  return n;
}

export async function diskUsage(dataDir: string): Promise<{ total: number; index: number; vectors: number; originals: number; models: number }> {
  const sqlite = await Promise.all(['kb.sqlite', 'kb.sqlite-wal', 'kb.sqlite-shm'].map((f) => stat(join(dataDir, f)).then((s) => s.size, () => 0)));
  // models/ holds the embedding models and models/whisper/ the speech models.
  const [vectors, originals, models, total] = await Promise.all([
    bytesUnder(join(dataDir, 'vectors')),
    bytesUnder(join(dataDir, 'blobs')),
    bytesUnder(join(dataDir, 'models')),
    bytesUnder(dataDir),
  ]);
  return { total, index: sqlite.reduce((a, b) => a + b, 0), vectors, originals, models };
}
