// The vector half as the engine uses it: the bound model and its vector table (LanceDB beside SQLite,
// pgvector on PostgreSQL), opened on first need (never loading onnxruntime without a model), reopened
// when another process switched the table or the table failed, and its index kept up in the background
// while searches go on.
import { asEngine } from '../acting.js';
import { join } from 'node:path';
import { firstLine, KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type ReindexProgress, type ReindexResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import type { VectorSidePort, VectorTables } from '../store/vector-port.js';
import { PgVectorSide } from '../store/postgres/vector-side.js';
import { PgVectorTables } from '../store/postgres/vectors.js';
import { SqliteVectorSide } from '../store/vector-side.js';
import { embeddingAvailable, resolveEmbedding } from '../embed/resolve.js';
import { configOf, embeddingRef } from '../embed/spec.js';
import type { EmbeddingChoice, Semantic, Unavailable } from './semantic.js';
import { OLD_VERSIONS_KEPT_MS } from './retention.js';

/** Where the store keeps the vector half. */
interface VectorHome {
  side: VectorSidePort;
  tables: VectorTables;
}

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
  /** What the store says of its vectors, asked once: PostgreSQL without pgvector has none. */
  private homeP?: Promise<VectorHome | Unavailable>;

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

  /**
   * The store's vector side and tables: LanceDB's folder beside the SQLite file, or pgvector's tables
   * in the PostgreSQL database — unless pgvector is missing there (then what an administrator runs).
   */
  private home(): Promise<VectorHome | Unavailable> {
    this.homeP ??= (async (): Promise<VectorHome | Unavailable> => {
      const store = this.core.store;
      if (store.kind === 'sqlite') {
        const { lanceTables } = await import('./store.js');
        return { side: new SqliteVectorSide(store.db), tables: lanceTables(join(this.core.dataDir, 'vectors')) };
      }
      const { vectorSupport } = await import('../store/postgres/pgvector.js');
      const support = await vectorSupport(store.pool);
      if (!support.ready) return { unavailable: `${support.howTo}; searching by words` };
      return { side: new PgVectorSide(store.pool), tables: new PgVectorTables(store.pool, store.readPool) };
    })();
    this.homeP.then(
      (h) => {
        if ('unavailable' in h) this.homeP = undefined; // pgvector may be added while kb runs
      },
      () => (this.homeP = undefined),
    );
    return this.homeP;
  }

  /** The embedding model and vector table, or why there are none. */
  async open(): Promise<Semantic | Unavailable> {
    const resolved = resolveEmbedding(join(this.core.dataDir, 'models'), this.embeddingModel);
    if ('unavailable' in resolved) return { unavailable: resolved.unavailable };
    const home = await this.home();
    if ('unavailable' in home) return home;
    const { dataDir } = this.core;
    const live = (await home.side.binding())?.table ?? null;
    if (this.semanticP && this.semanticTable !== undefined && this.semanticTable !== live) this.drop();
    if (!this.semanticP) {
      this.semanticTable = undefined;
      // Opened once for every caller: as the engine, not as whichever user asked first.
      const p = asEngine(() => import('./semantic.js').then((m) => m.Semantic.open(dataDir, home.side, home.tables, this.choice())));
      this.semanticP = p;
      // Opening may bind the index to the model; remember the table it actually opened.
      void p.then(
        (s) => {
          if (this.semanticP !== p) return;
          if ('unavailable' in s && s.retry) {
            this.semanticP = undefined; // e.g. Ollama not running yet: ask again next time
            return;
          }
          void home.side.binding().then((b) => {
            if (this.semanticP !== p) return;
            this.semanticTable = b?.table ?? null;
            if (this.reconcileOnOpen && 'sync' in s) this.maintain(s, true);
          });
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
    // The index serves everyone: kept as the engine, whichever user's ingest started it.
    const reconciled = asEngine(() => (reconcileFirst ? sem.sync({ ifChanged: true }) : Promise.resolve()));
    this.upkeep = reconciled
      .then(() => asEngine(() => sem.maintain(this.core.config.embedding.ann_min_rows)))
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
    const home = await this.home();
    if ('unavailable' in home) throw new KbError('UNSUPPORTED', home.unavailable);
    const { result, semantic } = await reindex(dataDir, home.side, home.tables, this.choice(model), {
      ...opts,
      annMinRows: config.embedding.ann_min_rows,
    });
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
    const home = await this.home();
    const live = 'unavailable' in home ? null : await home.side.binding();
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
      const home = await this.home();
      const binding = 'unavailable' in home ? null : await home.side.binding();
      this.drop();
      if (binding && !('unavailable' in home)) await home.tables.drop(binding.table).catch(() => undefined);
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
