// Collections as the engine offers them: add a folder (and bring it in), list, forget, reconcile with
// the disk on start, and watch. Ingest, removal and tagging go through the engine's own services.
import { basename, join, resolve, sep } from 'node:path';
import { KbError } from '../../shared/errors.js';
import type { IngestProgress, IngestSummary, RemoveResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { docState } from '../store/doc-state.js';
import { errorFields } from '../log.js';
import type { DocStamp, CollectionRow } from '../store/rows.js';
import type { VectorService } from '../vectors/service.js';
import type { ReconcileResult, SyncContext } from './sync.js';
import type { CollectionWatcher, WatchOptions } from './watcher.js';
import type { CollectionSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';
import { currentActor } from '../acting.js';

export type CollectionInfo = z.infer<typeof CollectionSchema>;

type Progress = { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void };

export class CollectionService {
  /** A folder being read as it is added, by name: Forget stops it, and waits for it to stop. */
  private readonly syncs = new Map<string, { ctl: AbortController; done: Promise<unknown> }>();
  /** The watcher a long-lived host started (watch()): collections added or forgotten later join or leave it. */
  private watcher: CollectionWatcher | null = null;

  constructor(
    private readonly core: Core,
    private readonly vectors: VectorService,
    private readonly ingest: (paths: string[], opts: Progress & { tags?: string[] }) => Promise<IngestSummary>,
    private readonly remove: (target: string | { ids: string[] }) => Promise<RemoveResult>,
  ) {}

  private syncContext(): SyncContext {
    const { store, config, dataDir } = this.core;
    return { store, config, dataDir, ingest: this.ingest, remove: this.remove, tag: (docIds, tags) => this.tagDocuments(docIds, tags) };
  }

  /** Gives documents tags they lack, in the word index and on their vectors; returns how many changed. */
  private async tagDocuments(docIds: string[], tags: string[]): Promise<number> {
    const { tagMissing } = await import('./tag.js');
    const retagged = await this.core.store.write((t) => tagMissing(t, docIds, tags));
    if (retagged.length > 0) {
      this.core.wordsChanged();
      // If vectors cannot be updated now, word search still filters by the new tags, and `kb reindex`
      // rewrites the vectors with them.
      await this.vectors
        .retag(retagged)
        .catch((e: unknown) => this.core.log.warn({ documents: retagged.length, ...errorFields(e) }, 'vectors not retagged'));
    }
    return retagged.length;
  }

  /** Adds a folder as a collection and brings it in (kb add). */
  async add(
    folder: string,
    opts: Progress & { name?: string; tags?: string[]; glob?: string; many?: boolean } = {},
  ): Promise<{ collection: CollectionInfo; reconciled: ReconcileResult }> {
    this.core.assertWritable('add a collection to it');
    const { countFiles, defaultName, MANY_FILES, reconcile, validateNewCollection } = await import('./sync.js');
    const root = resolve(folder);
    const name = opts.name ?? defaultName(root);
    validateNewCollection(await this.core.store.tables.collections.list(), root, name, this.core.dataDir);
    // Cancel is heard from the first moment: while the files are counted, read, and watched.
    const ctl = new AbortController();
    const stop = (): void => ctl.abort();
    opts.signal?.addEventListener('abort', stop, { once: true });
    const cancelled = (): KbError => new KbError('CANCELLED', `adding ${root} was cancelled: nothing of it was kept`);
    try {
      if (!opts.many) {
        opts.onProgress?.({ phase: 'scan', done: 0, total: 0 });
        const n = await countFiles(root, opts.glob ?? null, this.core.config, this.core.dataDir, ctl.signal);
        if (ctl.signal.aborted) throw cancelled();
        if (n.files > MANY_FILES)
          throw new KbError(
            'TOO_LARGE',
            `${root} holds ${n.more ? 'more than ' : ''}${n.files.toLocaleString('en-US')} files to read and keep in sync: add it again saying yes (kb add --yes) if you mean all of them, or choose a smaller folder`,
          );
      }
      const row = {
        name,
        root,
        tags: (opts.tags ?? []).map((t) => t.trim()).filter(Boolean),
        glob: opts.glob ?? null,
        added_at: Date.now(),
      };
      await this.core.store.tables.collections.add(row);
      await this.audit('collection.add', name, root);
      const running = reconcile(this.syncContext(), row, { ...opts, signal: ctl.signal });
      this.syncs.set(name, { ctl, done: running.catch(() => undefined) });
      let reconciled: ReconcileResult;
      try {
        reconciled = await running;
        if (!ctl.signal.aborted) await this.watcher?.add(row);
      } finally {
        this.syncs.delete(name);
      }
      if (ctl.signal.aborted) {
        // Cancelled (or forgotten meanwhile), even as its watch was being set up: nothing of it is
        // kept, as if it had never been added.
        await this.watcher?.remove(name);
        if ((await this.core.store.tables.collections.list()).some((c) => c.name === name)) await this.drop(row);
        throw cancelled();
      }
      return { collection: (await this.list()).find((c) => c.name === name)!, reconciled };
    } finally {
      opts.signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * The collections the caller may read (acting.ts; every one for the owner), with how many documents
   * each holds, how many failed or wait, and whether the caller may add to it.
   */
  async list(): Promise<CollectionInfo[]> {
    const t = this.core.store.tables;
    const sight = (await this.core.store.accounts?.sight()) ?? { all: true, readable: [], writable: [] };
    const collections = (await t.collections.list()).filter((c) => sight.all || sight.readable.includes(c.name));
    if (collections.length === 0) return [];
    // Counted by the index; of the documents, only those that may be failed or waiting are read.
    const unsettled = (await t.documents.unsettled()).map((d) => ({ path: d.path, status: docState(d).status }));
    const counts = await Promise.all(collections.map((c) => t.documents.countUnder(c.root.endsWith(sep) ? c.root : c.root + sep)));
    return collections.map((c, i) => {
      const dir = c.root.endsWith(sep) ? c.root : c.root + sep;
      const mine = unsettled.filter((d) => d.path.startsWith(dir));
      return {
        name: c.name,
        root: c.root,
        tags: c.tags,
        glob: c.glob,
        documents: counts[i]!,
        failed: mine.filter((d) => d.status === 'failed').length,
        waiting: mine.filter((d) => d.status === 'waiting').length,
        added_at: new Date(c.added_at).toISOString(),
        writable: sight.all || sight.writable.includes(c.name),
      };
    });
  }

  /**
   * Copies files into a collection's folder, under uploads/<first 16 hex of the content's sha256>/<its
   * path as given> — as kb serve keeps a dropped file — so two different files of one name never
   * replace each other and the same file again is the same copy. Answers the copies' paths.
   */
  async copyInto(name: string, paths: string[]): Promise<string[]> {
    const c = (await this.core.store.tables.collections.list()).find((x) => x.name === name);
    if (!c) throw new KbError('NOT_FOUND', `no collection named ${name}; kb collections lists them`);
    const { filesUnder } = await import('../ingest/files-under.js');
    const { copyByContent } = await import('./copy-by-content.js');
    const out: string[] = [];
    for (const f of await filesUnder(paths)) out.push(await copyByContent(f.path, join(c.root, 'uploads'), f.name));
    return out;
  }

  /** Stops keeping a folder in sync and removes its documents from the index (the files stay). */
  /**
   * What forgetting the collection takes out of the index: the documents its own sync brought in —
   * inside the folder (and its glob), added since the collection was, never kb's own data dir (dropped
   * files live there, and a home-folder collection holds it). A document indexed on its own before
   * the folder was added stays.
   */
  private async own(c: CollectionRow): Promise<DocStamp[]> {
    const { dirOf, inCollection } = await import('./sync.js');
    const data = dirOf(resolve(this.core.dataDir));
    return (await this.core.store.tables.documents.under(dirOf(c.root))).filter(
      (d) => inCollection(c, d.path) && !d.path.startsWith(data) && d.added_at >= c.added_at,
    );
  }

  private async named(name: string): Promise<CollectionRow> {
    const c = (await this.core.store.tables.collections.list()).find((x) => x.name === name);
    if (!c) throw new KbError('NOT_FOUND', `no collection named ${name}; kb collections lists them`);
    return c;
  }

  async leaving(name: string): Promise<{ collection: string; documents: number; names: string[] }> {
    const own = await this.own(await this.named(name));
    return { collection: name, documents: own.length, names: own.slice(0, 5).map((d) => basename(d.path)) };
  }

  async forget(name: string): Promise<{ collection: string; removed: number }> {
    const c = await this.named(name);
    // Its sync stops first (a folder still being read, the watcher), so nothing comes back in after.
    const sync = this.syncs.get(name);
    sync?.ctl.abort();
    await sync?.done;
    await this.watcher?.remove(name);
    const removed = await this.drop(c);
    await this.audit('collection.forget', name, `${removed} documents removed`);
    return { collection: name, removed };
  }

  /** Takes the collection and what it brought in out of the index; how many documents left. */
  private async drop(c: CollectionRow): Promise<number> {
    const own = await this.own(c);
    const removed = own.length > 0 ? (await this.remove({ ids: own.map((d) => d.id) })).removed.length : 0;
    await this.core.store.tables.collections.forget(c.name);
    return removed;
  }

  /** On a shared store, who added or forgot a collection is on the audit trail (a team's admin by name; the database's own credentials: @admin). */
  private async audit(action: string, name: string, detail: string): Promise<void> {
    await this.core.store.accounts?.record({ at: Date.now(), actor: currentActor() ?? '@admin', action, target: name, detail });
  }

  /** Reconciles every collection with the disk (on start): what changed while kb was closed. */
  async reconcileAll(opts: Progress = {}): Promise<ReconcileResult[]> {
    const { reconcile } = await import('./sync.js');
    const out: ReconcileResult[] = [];
    for (const c of await this.core.store.tables.collections.list()) out.push(await reconcile(this.syncContext(), c, opts));
    return out;
  }

  /** Watches every collection until closed; batches of changes are applied as they settle. */
  async watch(opts: WatchOptions = {}): Promise<CollectionWatcher> {
    const { CollectionWatcher } = await import('./watcher.js');
    const w = new CollectionWatcher(this.syncContext(), opts);
    for (const c of await this.core.store.tables.collections.list()) await w.add(c);
    this.watcher = w;
    return w;
  }
}
