// Which files an ingest may read, by their real path — a symlink is followed to where it leads before
// anything is decided. kb's own data (its data dir: the index, stored copies, tokens; and its config
// files) is never read, whoever asks. A team's user reads only inside the real folders of the
// collections they edit, and each file is recorded at its real path, so it belongs to the collection
// that really holds it: a link inside one collection to another's files, or to kb serve's token,
// brings nothing in (issue 50).
import { realpath } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { globalConfigPath, CONFIG_FILE } from '../config/load.js';
import { join } from 'node:path';
import { uploadsDir } from '../uploads.js';

/**
 * A team user's bounds: for a file's real path, the collection they edit that really holds it — its
 * root as kb records it, and the file's path under that root — or null.
 */
export type Confinement = (real: string) => { root: string; path: string } | null;

export type Admitted = { path: string; root: string } | { skip: string } | { refused: string };

const under = (path: string, dir: string): boolean => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/**
 * kb's own places, as real paths: the data dir but the files dropped in a browser (uploads/: the
 * person's own), and the config files (they may hold a store's password).
 */
export async function ownPlaces(dataDir: string): Promise<{ dirs: string[]; files: string[]; dropped: string }> {
  const real = (p: string): Promise<string> => realpath(p).catch(() => resolve(p));
  return {
    dirs: [await real(dataDir)],
    files: [await real(globalConfigPath()), await real(join(dataDir, CONFIG_FILE))],
    dropped: await real(uploadsDir(dataDir)),
  };
}

/** Whether a real path is kb's own data (but a file dropped in a browser, which is the person's). */
export function isOwn(real: string, own: { dirs: string[]; files: string[]; dropped: string }): boolean {
  return own.files.includes(real) || (own.dirs.some((d) => under(real, d)) && !under(real, own.dropped));
}

/**
 * Whether a document kept by reference may still be read at its path: where it leads now is not kb's
 * own data and lies in the real folder of the collection that holds the path. A file replaced by a
 * link after it was indexed — to kb serve's token, to another collection's file — is not (issue 50).
 */
export async function stillInPlace(path: string, dataDir: string, roots: string[]): Promise<boolean> {
  const real = await realpath(path).catch(() => null);
  if (real === null || isOwn(real, await ownPlaces(dataDir))) return false;
  const root = roots.filter((r) => under(resolve(path), resolve(r))).sort((a, b) => b.length - a.length)[0];
  if (root === undefined) return true;
  const realRoot = await realpath(root).catch(() => null);
  return realRoot !== null && under(real, realRoot);
}

/** Whether and as what one walked file is read. */
export async function admit(
  file: { path: string; root: string },
  own: { dirs: string[]; files: string[]; dropped: string },
  confine: Confinement | undefined,
): Promise<Admitted> {
  const real = await realpath(file.path).catch(() => resolve(file.path));
  if (isOwn(real, own)) return { skip: "kb's own data" };
  if (!confine) return file;
  const held = confine(real);
  // Where the link leads is not said: that would tell a user what lies outside what they may read.
  if (held === null) return { refused: `${file.path} leads outside the collections you edit (a symlink): it was not read` };
  return held;
}
