// Collections: folders kb keeps in sync with the index. Reconciling compares the disk with the index
// by size and mtime (a file whose stamp is unchanged is not read at all), ingests what is new or
// changed (the pipeline's content hash then decides), and removes what is gone. Files are taken in
// before deletions are made, so a file that moved keeps its document and chunks (the pipeline sees
// its old path gone and moves it) instead of being removed and embedded again.
import { existsSync, statSync } from 'node:fs';
import { basename, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { KbError } from '../../shared/errors.js';
import type { Config } from '../../shared/config.js';
import type { IngestProgress, IngestSummary } from '../../shared/wire.js';
import type { Store } from '../store/port.js';
import type { CollectionRow } from '../store/rows.js';
import { refusedFolder } from '../ingest/refused-folders.js';
import { walk } from '../ingest/walk.js';
import type { ReconcileSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export interface SyncContext {
  store: Store;
  config: Config;
  dataDir: string;
  ingest(
    paths: string[],
    opts: { tags?: string[]; signal?: AbortSignal; onProgress?: (p: IngestProgress) => void },
  ): Promise<IngestSummary>;
  remove(path: string): Promise<unknown>;
  /** Gives documents the tags they lack (a collection's tags belong to every document in it). */
  tag(docIds: string[], tags: string[]): Promise<number>;
}

export type ReconcileResult = z.infer<typeof ReconcileSchema>;

export const dirOf = (root: string): string => (root.endsWith(sep) ? root : root + sep);

/** Whether a path belongs to the collection: under its root and, if it has one, matching its glob. */
export function inCollection(c: CollectionRow, path: string): boolean {
  if (!path.startsWith(dirOf(c.root))) return false;
  if (!c.glob) return true;
  return picomatch.isMatch(relative(c.root, path).split(sep).join('/'), c.glob, { dot: true });
}

export function collectionFor(collections: CollectionRow[], path: string): CollectionRow | undefined {
  return collections.find((c) => inCollection(c, path));
}

export function validateNewCollection(existing: CollectionRow[], root: string, name: string, dataDir: string): void {
  if (!existsSync(root)) throw new KbError('NOT_FOUND', `no folder at ${root}`);
  if (!statSync(root).isDirectory())
    throw new KbError(
      'INVALID_ARGUMENT',
      `${root} is a file, not a folder: kb keeps folders in sync (add a file as it is with kb ingest, or Add files…)`,
    );
  if (!/^[\w][\w.-]{0,63}$/.test(name))
    throw new KbError('INVALID_ARGUMENT', `a collection name is letters, digits, . _ - (not "${name}"); choose one with --name`);
  if (existing.some((c) => c.name === name))
    throw new KbError('INVALID_ARGUMENT', `there is already a collection named ${name}; choose another with --name`);
  // (kb's own data dir may sit inside a collection: walking and watching always leave it out.)
  const refused = refusedFolder(root, dataDir);
  if (refused) throw new KbError('INVALID_ARGUMENT', refused);
  for (const c of existing) {
    if (dirOf(root).startsWith(dirOf(c.root)) || dirOf(c.root).startsWith(dirOf(root))) {
      throw new KbError('INVALID_ARGUMENT', `${root} overlaps the collection ${c.name} (${c.root}); a folder belongs to one collection`);
    }
  }
}

/** A folder of more files than this is added only when the person has said yes, told how many. */
export const MANY_FILES = 5000;
/** Counting stops here, or after this long: "more than" is said then. */
const COUNT_CAP = 200_000;
const COUNT_MS = 10_000;

/** How many files a collection of this folder would read (as its sync walks it), up to a cap. */
export async function countFiles(
  root: string,
  glob: string | null,
  config: Config,
  dataDir: string,
  signal?: AbortSignal,
): Promise<{ files: number; more: boolean }> {
  const c: CollectionRow = { name: '', root, tags: [], glob, added_at: 0 };
  const until = performance.now() + COUNT_MS;
  let files = 0;
  const walkOpts = {
    ignore: config.ingest.ignore,
    followSymlinks: config.ingest.follow_symlinks,
    followOutside: config.ingest.follow_symlinks_outside,
    exclude: [dataDir],
  };
  for await (const e of walk([root], walkOpts)) {
    if (signal?.aborted) break;
    if (e.kind === 'file' && inCollection(c, e.path)) files++;
    if (files >= COUNT_CAP || (files % 1000 === 0 && performance.now() > until)) return { files, more: true };
  }
  return { files, more: false };
}

export function defaultName(root: string): string {
  return (
    basename(root)
      .replace(/[^\w.-]+/g, '-')
      .replace(/^[^\w]+/, '') || 'folder'
  );
}

/** Brings one collection's documents in line with its folder. */
export async function reconcile(
  ctx: SyncContext,
  c: CollectionRow,
  opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {},
): Promise<ReconcileResult> {
  const t0 = performance.now();
  const known = new Map(
    (await ctx.store.tables.documents.under(dirOf(c.root))).filter((d) => inCollection(c, d.path)).map((d) => [d.path, d]),
  );
  const changed: string[] = [];
  const seen = new Set<string>();
  let files = 0;
  if (existsSync(c.root)) {
    const walkOpts = {
      ignore: ctx.config.ingest.ignore,
      followSymlinks: ctx.config.ingest.follow_symlinks,
      followOutside: ctx.config.ingest.follow_symlinks_outside,
      exclude: [ctx.dataDir],
    };
    for await (const e of walk([c.root], walkOpts)) {
      if (opts.signal?.aborted) break;
      if (e.kind !== 'file' || !inCollection(c, e.path)) continue;
      files++;
      if (files % 500 === 0) opts.onProgress?.({ phase: 'scan', done: files, total: 0 });
      seen.add(e.path);
      const doc = known.get(e.path);
      if (doc && doc.status === 'indexed') {
        try {
          const st = statSync(e.path);
          if (st.size === doc.size && Math.floor(st.mtimeMs) === doc.mtime) continue; // unchanged: not read
        } catch {
          continue; // gone in the meantime: the deletion below or the watcher takes it
        }
      }
      changed.push(e.path);
    }
  }
  let errors = 0;
  let ingested = 0;
  if (changed.length > 0 && !opts.signal?.aborted) {
    const s = await ctx.ingest(changed, {
      tags: c.tags,
      ...(opts.signal ? { signal: opts.signal } : {}),
      ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
    });
    errors = s.failed;
    ingested = s.added + s.updated;
  }
  // Files indexed before they joined the collection (or before its tags changed) were not read again.
  if (c.tags.length > 0) {
    const read = new Set(changed);
    const unchanged = [...known.values()].filter((d) => seen.has(d.path) && !read.has(d.path)).map((d) => d.id);
    await ctx.tag(unchanged, c.tags);
  }
  let removed = 0;
  // A cancelled walk has not seen every file: nothing is taken for gone.
  for (const path of opts.signal?.aborted ? [] : known.keys()) {
    if (seen.has(path) || existsSync(path)) continue;
    // Moved files were taken over by the ingest above; what is still recorded here is really gone.
    if (await ctx.store.tables.documents.byPath(path)) {
      await ctx.remove(path);
      removed++;
    }
  }
  return {
    collection: c.name,
    files,
    ingested,
    removed,
    unchanged: files - changed.length,
    errors,
    took_ms: Math.round(performance.now() - t0),
  };
}
