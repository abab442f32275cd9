// What is added to a collection as copies (kb ingest --collection, a drop onto a team server's
// collection): the files given, and those under the folders given, each with its path relative to
// what was given (a folder's layout is kept).
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { KbError } from '../../shared/errors.js';

/** More than this in one drop is refused: a folder that big belongs on the server as a collection (kb add). */
const MAX_FILES = 10_000;

export async function filesUnder(paths: string[]): Promise<{ path: string; name: string }[]> {
  const out: { path: string; name: string }[] = [];
  for (const p of paths) {
    const s = await stat(p).catch(() => null);
    if (!s) throw new KbError('NOT_FOUND', `${p} does not exist`);
    if (s.isFile()) out.push({ path: p, name: basename(p) });
    else
      for (const e of await readdir(p, { recursive: true, withFileTypes: true }))
        if (e.isFile() && !e.name.startsWith('.')) {
          const full = join(e.parentPath, e.name);
          out.push({ path: full, name: join(basename(p), relative(p, full)) });
        }
    if (out.length > MAX_FILES)
      throw new KbError('TOO_LARGE', `more than ${MAX_FILES} files in one drop: add the folder on the server as a collection (kb add)`);
  }
  return out;
}
