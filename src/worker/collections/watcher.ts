// Watching collections (chokidar): changes reach the index within a couple of seconds. Events are
// gathered for a short quiet time (an editor's save is several events; a checkout is thousands), then
// applied as one batch: files that exist are ingested first (so a rename is a move: same document,
// same chunks and vectors), then paths that are gone are removed. One batch runs at a time.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { CollectionRow } from '../store/rows.js';
import { inCollection, type SyncContext } from './sync.js';
import { hiddenUnder, type IgnoreFilesRead, ignoredUnder, savedPageOf } from '../ingest/walk.js';

import type { WatchEvent } from '../../shared/events.js';

export type { WatchEvent };

export interface WatchOptions {
  /** Quiet time before a batch is applied, ms. */
  debounceMs?: number;
  onBatch?: (e: WatchEvent) => void;
  onError?: (e: Error) => void;
}

/** A path that resolves (through a symlink) to somewhere outside the collection's folder. */
function leavesRoot(root: string, path: string): boolean {
  try {
    const real = realpathSync(path);
    const base = realpathSync(root);
    return real !== base && !real.startsWith(base + sep);
  } catch {
    return false; // gone: a removal, which is always taken
  }
}

/** A path in (or being) a saved page's companion folder (`Page_files/` beside `Page.html`), as walk.ts skips it. */
function insideSavedPage(path: string, root: string): boolean {
  for (let d = path; d.length > root.length && d !== dirname(d); d = dirname(d)) {
    if (savedPageOf(d, (n) => existsSync(join(dirname(d), n)))) return true;
  }
  return false;
}

export class CollectionWatcher {
  private readonly watchers = new Map<string, FSWatcher>();
  private readonly pending = new Map<string, { c: CollectionRow; paths: Set<string> }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly ctx: SyncContext,
    private readonly opts: WatchOptions = {},
  ) {}

  /** Starts watching; resolves when every watcher has scanned its folder and reports changes. */
  async add(c: CollectionRow): Promise<void> {
    const dataDir = this.ctx.dataDir.endsWith(sep) ? this.ctx.dataDir : this.ctx.dataDir + sep;
    const w = watch(c.root, {
      ignoreInitial: true,
      persistent: true,
      // An editor's save (a temp file renamed over the original) is reported as one change.
      atomic: true,
      // What the walk never reaches is never watched either: hidden files and folders (~/.config),
      // .git, node_modules…, kb's own data dir, a saved page's companion folder.
      ignored: (p: string) => hiddenUnder(p, c.root) || (p + sep).startsWith(dataDir) || insideSavedPage(p, c.root),
    });
    const queue = (path: string): void => {
      if (!inCollection(c, path) && !this.isFolderEvent(c, path)) return;
      if (!this.ctx.config.ingest.follow_symlinks_outside && leavesRoot(c.root, path)) return;
      const entry = this.pending.get(c.name) ?? { c, paths: new Set<string>() };
      entry.paths.add(path);
      this.pending.set(c.name, entry);
      this.schedule();
    };
    w.on('add', queue).on('change', queue).on('unlink', queue).on('unlinkDir', queue);
    w.on('error', (e) => this.opts.onError?.(e as Error));
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    this.watchers.set(c.name, w);
  }

  /** Stops watching a collection (forgotten while the app runs); its queued changes are dropped. */
  async remove(name: string): Promise<void> {
    const w = this.watchers.get(name);
    this.watchers.delete(name);
    this.pending.delete(name);
    await w?.close();
  }

  /** A removed folder inside the collection: its documents go (the glob applies to files only). */
  private isFolderEvent(c: CollectionRow, path: string): boolean {
    return path.startsWith(c.root + sep) && !existsSync(path);
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.running.then(() => this.flush());
    }, this.opts.debounceMs ?? 150);
  }

  private async flush(): Promise<void> {
    if (this.closed) return;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const { c, paths } of batches) {
      const t0 = performance.now();
      const present: string[] = [];
      const ignoreFiles: IgnoreFilesRead = new Map();
      for (const p of paths)
        // As the walk reads the folder: the ignore files on the way and the config's patterns apply.
        if (existsSync(p) && inCollection(c, p) && !(await ignoredUnder(p, c.root, this.ctx.config.ingest.ignore, ignoreFiles)))
          present.push(p);
      const gone = [...paths].filter((p) => !existsSync(p));
      const event: WatchEvent = { collection: c.name, ingested: [], removed: [], errors: [], took_ms: 0 };
      try {
        if (present.length > 0) {
          const s = await this.ctx.ingest(present, { tags: c.tags });
          event.ingested = present.filter((p) => !s.errors.some((e) => e.path === p));
          event.errors.push(...s.errors.map((e) => ({ path: e.path, message: `${e.code}: ${e.message}` })));
        }
        for (const p of gone) {
          // A moved file was taken over above; a file or folder still recorded here is gone.
          const docs = this.ctx.store.tables.documents;
          if ((await docs.byPath(p)) || (await docs.under(p + sep)).length > 0) {
            await this.ctx.remove(p);
            event.removed.push(p);
          }
        }
      } catch (e) {
        event.errors.push({ path: c.root, message: (e as Error).message });
      }
      event.took_ms = Math.round(performance.now() - t0);
      if (event.ingested.length + event.removed.length + event.errors.length > 0) this.opts.onBatch?.(event);
    }
  }

  /** Waits for what is queued to be applied (tests, and a clean shutdown). */
  async settle(): Promise<void> {
    while (this.pending.size > 0 || this.timer) {
      await new Promise((r) => setTimeout(r, (this.opts.debounceMs ?? 150) + 20));
      await this.running;
      if (this.pending.size === 0) break;
    }
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await Promise.all([...this.watchers.values()].map((w) => w.close()));
    await this.running;
  }
}
