// How much of the disk a data dir takes, by part, for the app's Status view and kb status: what the
// file system gives each file and folder (as du counts), not the bytes written in them — LanceDB and
// the stored copies are many small files, each taking at least a block.
import type { Stats } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** The disk a file or folder takes: its blocks where the file system says them (not on Windows), else its size. */
const taken = (s: Stats): number => (s.blocks > 0 || s.size === 0 ? s.blocks * 512 : s.size);

const takenBy = (p: string): Promise<number> =>
  stat(p).then(
    (s) => taken(s),
    () => 0,
  );

/** The disk taken by `dir` and everything under it (symlinks not followed) but the folders `skip` names; 0 when it does not exist. */
export async function bytesUnder(dir: string, skip: ReadonlySet<string> = new Set()): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  let n = await takenBy(dir);
  for (const e of entries) {
    if (skip.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) n += await bytesUnder(p);
    else if (e.isFile()) n += await takenBy(p);
  }
  return n;
}

/** blobs/ and its shard folders themselves (a few hundred at most), without walking the copies in them. */
async function blobFolders(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  const shards = await Promise.all(entries.filter((e) => e.isDirectory()).map((e) => takenBy(join(dir, e.name))));
  return (await takenBy(dir)) + shards.reduce((a, b) => a + b, 0);
}

/**
 * `originals`: the disk the stored copies take, as the index records them — a heavy library keeps
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
  const sqlite = await Promise.all(['kb.sqlite', 'kb.sqlite-wal', 'kb.sqlite-shm'].map((f) => takenBy(join(dataDir, f))));
  // models/ holds the embedding models and models/whisper/ the speech models.
  const [vectors, models, uploads, ocr, rest, shards] = await Promise.all([
    bytesUnder(join(dataDir, 'vectors')),
    bytesUnder(join(dataDir, 'models')),
    bytesUnder(join(dataDir, 'uploads')),
    bytesUnder(join(dataDir, 'ocr')),
    bytesUnder(dataDir, new Set(['blobs'])),
    blobFolders(join(dataDir, 'blobs')),
  ]);
  originals += shards;
  const total = rest + originals;
  const index = sqlite.reduce((a, b) => a + b, 0);
  // Every part is named, so the parts the Status view lists add up to the total it says.
  const other = Math.max(0, total - index - vectors - originals - models - uploads - ocr);
  return { total, index, vectors, originals, models, uploads, ocr, other };
}
