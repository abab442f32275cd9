// The vector half as the engine uses it: the bound model and its LanceDB table, opened on first need
// (never loading onnxruntime without a model), reopened when another process switched the table or
// LanceDB failed, and its index kept up in the background while searches go on.
import { join } from 'node:path';
import { firstLine, KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type ReindexProgress, type ReindexResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import { readBinding } from './binding.js';
import { embeddingAvailable, resolveEmbedding } from '../embed/resolve.js';
import { configOf, embeddingRef } from '../embed/spec.js';
import type { EmbeddingChoice, Semantic, Unavailable } from './semantic.js';
import { OLD_VERSIONS_KEPT_MS } from './retention.js';

/** Until the PostgreSQL store keeps its vectors with pgvector (issue 34), it searches by words. */
const NOT_YET_ON_POSTGRES =
  'search by meaning on the PostgreSQL store is not built yet (its vectors will live in pgvector); searching by words';

export class VectorService {
  /** Loaded on first need, and only when the configured model is installed. */
  private semanticP?: Promise<Semantic | Unavailable>;
  /** The live vector table semanticP was opened for; another process's reindex changes it. */
  private semanticTable?: string | null;
  /** The configured embedding model (a registry id, an imported name, ollama:<model>); reindex --model changes it. */
  private embeddingModel: string;
  /** Index upkeep running in the background (see Semantic.maintain), and how the last one ended. */
  private upkeep: Promise<void> | null = null;
  private upkeepFailure: string | null = null;
  private oldVersionsTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly core: Core,
    /** Long-lived hosts reconcile SQLite and LanceDB in the background when the vector half first opens. */
    private readonly reconcileOnOpen: boolean,
  ) {
    this.embeddingModel = embeddingRef(core.config.embedding);
  }

  private choice(ref = this.embeddingModel): EmbeddingChoice {
    const { embedding, ask } = this.core.config;
    // Prefixes set in the config apply to whichever model is in use: a switch keeps them, so every
    // process that reads this config computes the same fingerprint for the new table.
    const overrides = { query_prefix: embedding.query_prefix, passage_prefix: embedding.passage_prefix };
    return { ref, overrides, ollamaHost: ask.ollama_host };
  }

  get model(): string {
    return this.embeddingModel;
  }

  /** Why the last background index update failed, if it did (kb doctor says so). */
  get upkeepError(): string | null {
    return this.upkeepFailure;
  }

  modelInstalled(): boolean {
    return embeddingAvailable(join(this.core.dataDir, 'models'), this.embeddingModel);
  }

  /** The embedding model and vector table, or why there are none. */
  open(): Promise<Semantic | Unavailable> {
    const resolved = resolveEmbedding(join(this.core.dataDir, 'models'), this.embeddingModel);
    if ('unavailable' in resolved) return Promise.resolve({ unavailable: resolved.unavailable });
    const { dataDir } = this.core;
    const db = this.core.sqlite;
    if (!db) return Promise.resolve({ unavailable: NOT_YET_ON_POSTGRES });
    const live = readBinding(db)?.table ?? null;
    if (this.semanticP && this.semanticTable !== undefined && this.semanticTable !== live) this.drop();
    if (!this.semanticP) {
      this.semanticTable = undefined;
      const p = import('./semantic.js').then((m) => m.Semantic.open(dataDir, db, this.choice()));
      this.semanticP = p;
      // Opening may bind the index to the model; remember the table it actually opened.
      void p.then(
        (s) => {
          if (this.semanticP !== p) return;
          if ('unavailable' in s && s.retry) {
            this.semanticP = undefined; // e.g. Ollama not running yet: ask again next time
            return;
          }
          this.semanticTable = readBinding(db)?.table ?? null;
          if (this.reconcileOnOpen && 'sync' in s) this.maintain(s, true);
        },
        () => {
          if (this.semanticP === p) this.semanticP = undefined; // a broken model: try again next time
        },
      );
    }
    return this.semanticP;
  }

  /** Forgets the open table (closing it); the next use opens it again. */
  drop(): void {
    void this.semanticP?.then(
      (s) => ('close' in s ? s.close() : undefined),
      () => undefined,
    );
    this.semanticP = undefined;
    this.semanticTable = undefined;
  }

  /**
   * Runs fn on the vector half. If LanceDB fails (its files replaced or deleted by another process,
   * say), the store is reopened and fn tried once more; a second failure is the caller's to report.
   */
  async with<T>(fn: (sem: Semantic) => Promise<T>): Promise<T | Unavailable> {
    for (let attempt = 0; ; attempt++) {
      const sem = await this.open();
      if ('unavailable' in sem) return sem;
      try {
        return await fn(sem);
      } catch (e) {
        if (e instanceof KbError) throw e;
        this.core.log.warn({ attempt, ...errorFields(e) }, 'the vector store failed: reopening it');
        this.drop();
        if (attempt > 0) throw e;
      }
    }
  }

  /** Starts vector index upkeep unless it is already running; searches go on meanwhile. */
  maintain(sem: Semantic, reconcileFirst = false): void {
    if (this.upkeep) return;
    const reconciled = reconcileFirst ? sem.sync({ ifChanged: true }) : Promise.resolve();
    this.upkeep = reconciled
      .then(() => sem.maintain(this.core.config.embedding.ann_min_rows))
      .then(
        (did) => {
          this.upkeepFailure = null;
          if (did) this.forgetOldVersionsLater();
        },
        (e: unknown) => {
          this.upkeepFailure = (e as Error).message; // searches still work, only slower; doctor reports it
          this.core.log.warn(errorFields(e), 'updating the vector index failed');
        },
      )
      .finally(() => {
        this.upkeep = null;
      });
  }

  /**
   * An index build or a compaction leaves the table's former files on disk (twice the table, after a
   * build) until they are older than OLD_VERSIONS_KEPT_MS: a long-lived host deletes them then. A
   * one-shot command leaves it to the next upkeep or kb gc.
   */
  private forgetOldVersionsLater(): void {
    if (this.oldVersionsTimer) clearTimeout(this.oldVersionsTimer);
    this.oldVersionsTimer = setTimeout(() => {
      this.oldVersionsTimer = null;
      void this.forgetOldVersions().catch((e: unknown) => this.core.log.warn(errorFields(e), 'old vector versions not deleted'));
    }, OLD_VERSIONS_KEPT_MS + 5_000);
    this.oldVersionsTimer.unref();
  }

  /** Deletes the files of the vector table's replaced versions (kb gc). */
  async forgetOldVersions(): Promise<void> {
    const sem = await this.open();
    if ('sync' in sem) await sem.store.optimize();
  }

  /** Background work still running (building or updating the vector index), for a CLI about to exit. */
  backgroundWork(): Promise<void> | null {
    return this.upkeep;
  }

  /**
   * Reconciles the two stores: embeds chunks without vectors and drops vectors without chunks (after a
   * crash, or a lost table). Costs two reads when nothing changed since the last full sync.
   */
  async sync(): Promise<{ embedded: number; deleted: number } | null> {
    const sem = await this.open();
    if (!('sync' in sem)) return null;
    const r = await sem.sync({ ifChanged: true });
    this.maintain(sem);
    return r;
  }

  /** The chunk ids that have vectors (for doctor and the crash tests), or null without a model. */
  async ids(): Promise<string[] | null> {
    const sem = await this.open();
    if (!('sync' in sem)) return null;
    return [...(await sem.store.ids())];
  }

  /** Vectors carry tags for filtering: these documents' tags changed. */
  async retag(docIds: string[]): Promise<void> {
    if (docIds.length === 0) return;
    await this.with((sem) => sem.retag(docIds));
  }

  /**
   * Embeds every chunk with `model` (default: the configured one) into a new table and switches to it
   * when done. Searches go on against the previous vectors meanwhile. With a new model, the data dir's
   * config.yaml is updated so later runs use it.
   */
  async reindex(opts: { model?: string; onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {}): Promise<ReindexResult> {
    const model = opts.model ?? this.embeddingModel;
    const { reindex } = await import('./reindex.js');
    const { dataDir, config } = this.core;
    const db = this.core.sqlite;
    if (!db) throw new KbError('UNSUPPORTED', NOT_YET_ON_POSTGRES);
    const { result, semantic } = await reindex(dataDir, db, this.choice(model), { ...opts, annMinRows: config.embedding.ann_min_rows });
    let configUpdated: string | null = null;
    if (semantic) {
      this.drop();
      this.semanticP = Promise.resolve(semantic);
      this.semanticTable = semantic.store.name;
      if (model !== this.embeddingModel) {
        const { setDataDirSetting } = await import('../config/write.js');
        const { provider, model: name } = configOf(model);
        await setDataDirSetting(dataDir, ['embedding', 'provider'], provider);
        configUpdated = await setDataDirSetting(dataDir, ['embedding', 'model'], name);
        this.embeddingModel = model;
      }
    }
    return { schema_version: SCHEMA_VERSION, ...result, config_updated: configUpdated };
  }

  /**
   * kb models use: switch to `ref`, embedding everything with it unless the index's vectors already
   * are its (then only the config changes).
   */
  async use(ref: string, opts: { onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {}): Promise<ReindexResult> {
    const live = this.core.sqlite ? readBinding(this.core.sqlite) : null;
    if (live?.model !== ref) return this.reindex({ ...opts, model: ref });
    const unchanged = { schema_version: SCHEMA_VERSION, model: ref, previous: ref, embedded: 0, resumed: 0, cancelled: false, took_ms: 0 };
    if (ref === this.embeddingModel) return { ...unchanged, config_updated: null };
    const { setDataDirSetting } = await import('../config/write.js');
    const { provider, model } = configOf(ref);
    await setDataDirSetting(this.core.dataDir, ['embedding', 'provider'], provider);
    const file = await setDataDirSetting(this.core.dataDir, ['embedding', 'model'], model);
    this.embeddingModel = ref;
    this.drop();
    return { ...unchanged, config_updated: file };
  }

  /**
   * kb doctor --fix: every chunk gets its vector and vectors of gone chunks are deleted; a table that
   * is gone or unreadable is dropped and built again. Returns what was done, or null without a model.
   */
  async repair(onProgress?: (p: ReindexProgress) => void): Promise<{ embedded: number; deleted: number; rebuilt: string | null } | null> {
    if (!this.modelInstalled()) return null;
    const syncAll = async (): Promise<{ embedded: number; deleted: number }> => {
      const sem = await this.open();
      if (!('sync' in sem)) throw new Error(sem.unavailable);
      return sem.sync({ ifChanged: false, ...(onProgress ? { onProgress } : {}) });
    };
    try {
      return { ...(await syncAll()), rebuilt: null };
    } catch (e) {
      this.core.log.warn(errorFields(e), 'the vector table is unreadable: rebuilding it');
      const binding = this.core.sqlite ? readBinding(this.core.sqlite) : null;
      this.drop();
      if (binding) {
        const { dropVectorTable } = await import('./store.js');
        await dropVectorTable(join(this.core.dataDir, 'vectors'), binding.table).catch(() => undefined);
      }
      return { ...(await syncAll()), rebuilt: firstLine(e) };
    }
  }

  close(): void {
    if (this.oldVersionsTimer) clearTimeout(this.oldVersionsTimer);
    void this.semanticP?.then(
      (s) => ('close' in s ? s.close() : undefined),
      () => undefined,
    );
  }
}
