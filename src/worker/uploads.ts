// Dropped files' copies: a browser never says where a dropped file lives, so kb serve keeps its bytes
// under the data dir's uploads/ (cli/serve/uploads.ts) and the engine indexes that copy. The copy is
// kb's own: a document read from one keeps no second copy in blobs/, removing the document deletes
// it, and gc deletes copies no document is read from (a cancelled drop's, a failed file's).
import { readdir, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

/** A copy this young may be a drop whose ingest has not started yet (or a cancelled one's, to be read again): gc leaves it. */
const FRESH_MS = 10 * 60 * 1000;

export function uploadsDir(dataDir: string): string {
  return join(resolve(dataDir), 'uploads');
}

/**
 * A LIKE pattern (escaped with \\) for the copies of a file dropped under this path in the drop: in
 * any data dir's uploads/, under a 16-letter content folder (cli/serve/uploads.ts names them).
 */
export function droppedPattern(name: string): string {
  return `%/uploads/${'_'.repeat(16)}/${name.replace(/[\\%_]/g, (c) => `\\${c}`)}`;
}

export function isUploadCopy(path: string, dataDir: string): boolean {
  return resolve(path).startsWith(uploadsDir(dataDir) + sep);
}

/** Deletes a removed document's copy, and the folders it leaves empty; the bytes freed. */
export async function dropUploadCopy(path: string, dataDir: string): Promise<number> {
  if (!isUploadCopy(path, dataDir)) return 0;
  let size = 0;
  try {
    size = (await stat(path)).size;
    await unlink(path);
  } catch {
    return 0;
  }
  const top = uploadsDir(dataDir);
  for (let dir = dirname(resolve(path)); dir.startsWith(top + sep); dir = dirname(dir)) {
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      break; // not empty: the folder stays
  }
  return size;
}

/**
 * The copies under uploads/ that no document is read from and that are older than `minAgeMs`: a drop
 * cut short (kb serve stopped or killed while it read them) leaves them, unread and unlisted.
 */
export async function unreadUploads(dataDir: string, read: (path: string) => Promise<boolean>, minAgeMs = 60_000): Promise<string[]> {
  const entries = await readdir(uploadsDir(dataDir), { recursive: true, withFileTypes: true }).catch(() => []);
  const now = Date.now();
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isFile()) continue;
    const p = join(e.parentPath, e.name);
    const st = await stat(p).catch(() => null);
    if (st && now - st.mtimeMs >= minAgeMs && !(await read(p))) out.push(p);
  }
  return out.sort();
}

/** Deletes the copies under uploads/ that no document is read from (but fresh ones); how many, and their bytes. */
export async function collectUploads(
  dataDir: string,
  read: (path: string) => Promise<boolean>,
): Promise<{ removed: number; bytes: number }> {
  const out = { removed: 0, bytes: 0 };
  const now = Date.now();
  const walk = async (dir: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    let left = entries.length;
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (await walk(p)) left--;
        continue;
      }
      const st = await stat(p).catch(() => null);
      if (!st || now - st.mtimeMs < FRESH_MS || (await read(p))) continue;
      await rm(p, { force: true });
      out.removed++;
      out.bytes += st.size;
      left--;
    }
    // A folder left empty goes too; uploads/ itself stays.
    if (left === 0 && dir !== uploadsDir(dataDir))
      return rmdir(dir).then(
        () => true,
        () => false,
      );
    return false;
  };
  await walk(uploadsDir(dataDir));
  return out;
}
