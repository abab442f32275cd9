// Folder walking: what to look at, honouring .gitignore/.kbignore at every level, without looping
// on symlinks. Paths named explicitly by the user are taken even if they would be ignored.
import { lstat, readFile, realpath, readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { ErrorCode } from '../../shared/errors.js';

export type WalkEntry =
  | { kind: 'file'; path: string; root: string }
  | { kind: 'skip'; path: string; reason: string }
  | { kind: 'error'; path: string; code: ErrorCode; message: string };

const ALWAYS_SKIP_DIRS = new Set(['.git', 'node_modules', '.hg', '.svn', '__pycache__']);

/** A name the walk never enters or takes: hidden (a dotfile or dot-folder: ~/.config, .env) or always skipped. */
function skippedName(name: string): boolean {
  return name.startsWith('.') || ALWAYS_SKIP_DIRS.has(name);
}

/**
 * Whether a path under `root` is one the walk never reaches: a hidden or always-skipped file or folder
 * on its way (the watcher asks, so a file written later into ~/.config is no more indexed than one
 * that was there when the folder was added).
 */
export function hiddenUnder(path: string, root: string): boolean {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..')) return false;
  return rel.split(sep).some(skippedName);
}

/**
 * Whether the ignore files on the way from `root` (.gitignore/.kbignore) or the config's patterns leave
 * this path out. `read`: the ignore files read so far, by folder (a batch of a thousand paths reads each once).
 */
export async function ignoredUnder(path: string, root: string, patterns: string[], read: IgnoreFilesRead = new Map()): Promise<boolean> {
  const loadIgnoreOnce = (dir: string): Promise<Matcher | null> => {
    let m = read.get(dir);
    if (!m) read.set(dir, (m = loadIgnore(dir)));
    return m;
  };
  const matchers: Matcher[] = patterns.length > 0 ? [{ base: '/', ig: ignore().add(patterns) }] : [];
  const rel = relative(root, path);
  if (rel.startsWith('..')) return false;
  let dir = root;
  const own = await loadIgnoreOnce(dir);
  if (own) matchers.push(own);
  for (const part of rel.split(sep).slice(0, -1)) {
    dir = join(dir, part);
    if (ignored(matchers, dir, true)) return true;
    const here = await loadIgnoreOnce(dir);
    if (here) matchers.push(here);
  }
  return ignored(matchers, path, false);
}

/** The folder a browser's "Save page as… (complete)" writes beside the page: `Page_files` (localised in some browsers). */
const SAVED_PAGE_FOLDER = /^(.+)(_files|-Dateien|_fichiers|_archivos|_arquivos|_file|_bestanden|_filer|_pliki|_soubory)$/;

/**
 * The saved page a folder belongs to (its scripts, styles and pictures: not documents), or null. The
 * page's text is what the user saved; indexing its companions would fill results with minified code.
 */
export function savedPageOf(folder: string, siblings: (name: string) => boolean): string | null {
  const m = SAVED_PAGE_FOLDER.exec(basename(folder));
  if (!m) return null;
  for (const ext of ['.html', '.htm', '.xhtml', '.shtml']) if (siblings(`${m[1]}${ext}`)) return `${m[1]}${ext}`;
  return null;
}

/** The ignore files read, by folder: what ignoredUnder reads once for a batch of paths. */
export type IgnoreFilesRead = Map<string, Promise<Matcher | null>>;

interface Matcher {
  base: string;
  ig: Ignore;
}

export interface WalkOptions {
  ignore: string[];
  followSymlinks: boolean;
  /** Folders never entered: kb's own data dir, so its stored copies are not indexed again. */
  exclude?: string[];
  /** Follow symlinks that lead outside the folder being walked (default: skip them). */
  followOutside?: boolean;
}

async function loadIgnore(dir: string): Promise<Matcher | null> {
  let rules = '';
  for (const f of ['.gitignore', '.kbignore']) {
    try {
      rules += (await readFile(join(dir, f), 'utf8')) + '\n';
    } catch {
      // absent or unreadable ignore files simply add no rules
    }
  }
  return rules.trim() ? { base: dir, ig: ignore().add(rules) } : null;
}

function ignored(matchers: Matcher[], path: string, isDir: boolean): boolean {
  for (const m of matchers) {
    const rel = relative(m.base, path).split(sep).join('/');
    if (!rel || rel.startsWith('..')) continue;
    if (m.ig.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

function errnoCode(e: unknown): ErrorCode {
  return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'VANISHED' : 'UNREADABLE';
}

export async function* walk(inputs: string[], opts: WalkOptions): AsyncGenerator<WalkEntry> {
  const visitedDirs = new Set<string>();
  const excluded = new Set<string>();
  for (const x of opts.exclude ?? []) excluded.add(await realpath(x).catch(() => resolve(x)));
  const seenFiles = new Set<string>();
  const extra: Matcher[] = opts.ignore.length > 0 ? [{ base: '/', ig: ignore().add(opts.ignore) }] : [];

  async function* dir(path: string, root: string, matchers: Matcher[]): AsyncGenerator<WalkEntry> {
    let real: string;
    try {
      real = await realpath(path);
    } catch (e) {
      yield { kind: 'error', path, code: errnoCode(e), message: (e as Error).message };
      return;
    }
    if (excluded.has(real)) {
      yield { kind: 'skip', path, reason: "kb's own data folder" };
      return;
    }
    if (visitedDirs.has(real)) {
      yield { kind: 'skip', path, reason: 'symlink loop or folder already visited' };
      return;
    }
    visitedDirs.add(real);
    let names: string[];
    try {
      names = (await readdir(path)).sort();
    } catch (e) {
      yield { kind: 'error', path, code: errnoCode(e), message: `cannot read folder: ${(e as Error).message}` };
      return;
    }
    const own = await loadIgnore(path);
    const here = own ? [...matchers, own] : matchers;
    for (const name of names) {
      const child = join(path, name);
      if (skippedName(name)) continue;
      let st;
      try {
        st = await stat(child);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') yield { kind: 'skip', path: child, reason: 'symlink loop' };
        else if (code === 'ENOENT') yield { kind: 'skip', path: child, reason: 'broken symlink or vanished' };
        else yield { kind: 'error', path: child, code: errnoCode(e), message: (e as Error).message };
        continue;
      }
      const isDir = st.isDirectory();
      if (ignored(here, child, isDir)) continue;
      const lst = await lstat(child).catch(() => null);
      if (lst?.isSymbolicLink()) {
        if (!opts.followSymlinks) continue;
        if (!opts.followOutside) {
          // A link out of the folder would index (and serve) files the user never put there.
          const target = await realpath(child).catch(() => child);
          const base = await realpath(root).catch(() => root);
          if (target !== base && !target.startsWith(base + sep)) {
            yield { kind: 'skip', path: child, reason: 'a symlink to outside the folder (ingest.follow_symlinks_outside)' };
            continue;
          }
        }
      }
      if (isDir) {
        const page = savedPageOf(child, (n) => names.includes(n));
        if (page) {
          yield { kind: 'skip', path: child, reason: `the pictures, styles and scripts of the saved page ${page}` };
          continue;
        }
        yield* dir(child, root, here);
      } else if (st.isFile()) yield* file(child, root);
    }
  }

  async function* file(path: string, root: string): AsyncGenerator<WalkEntry> {
    let real = path;
    try {
      real = await realpath(path);
    } catch {
      // keep the given path; reading it will report the problem
    }
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    yield { kind: 'file', path, root };
  }

  for (const input of inputs) {
    const abs = resolve(input);
    let st;
    try {
      st = await stat(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      yield {
        kind: 'error',
        path: abs,
        code: code === 'ENOENT' ? 'NOT_FOUND' : errnoCode(e),
        message: code === 'ENOENT' ? 'no such file or folder' : (e as Error).message,
      };
      continue;
    }
    if (st.isDirectory()) yield* dir(abs, abs, extra);
    else if (st.isFile()) yield* file(abs, dirname(abs));
    else yield { kind: 'skip', path: abs, reason: `not a regular file (${basename(abs)})` };
  }
}
