// The engine facade: the only entry point into storage, ingest and search. The CLI, the worker's
// message loop and the tests all go through it; each method hands the call to the service that does
// that one job. Nothing behind it (the database, the stores, the services) is reachable from outside.
import type { Config } from '../shared/config.js';
import type {
  AskProgress,
  AskResult,
  DocumentSource,
  DocumentSummary,
  DocumentPage,
  DocumentPageParams,
  DocView,
  DoctorReport,
  IngestProgress,
  IngestSummary,
  KbStatus,
  ReindexProgress,
  ReindexResult,
  RemoveResult,
  SearchHit,
  SearchParams,
  SearchResult,
  Span,
} from '../shared/wire.js';
import type { FileProgress } from './embed/download.js';
import type { ModelInfo } from './models/embedding-store.js';
import type { SpeechModelInfo } from './models/speech-store.js';
import type { ReconcileResult } from './collections/sync.js';
import type { CollectionWatcher, WatchOptions } from './collections/watcher.js';
import type { Core } from './core.js';
import type { Log } from './log.js';
import { wordIndexOf } from './search/word-sources.js';
import { SpeechService } from './ingest/speech/speech.js';
import { type CollectionInfo, CollectionService } from './collections/service.js';
import { removeDocuments } from './documents/remove.js';
import { type IngestCallOptions, IngestService } from './ingest/service.js';
import { Upkeep } from './ingest/upkeep.js';
import { TopsUpkeep } from './search/tops-upkeep.js';
import { MergeUpkeep } from './maintenance/merge-upkeep.js';
import { upgradeIfSmall, upgradeInBackground } from './maintenance/upgrade.js';
import type { BackgroundEvent } from '../shared/events.js';
import type { ModelsList } from '../shared/models-collections.js';
import { AccountService } from './accounts/service.js';
import { TeamLink } from './link/service.js';
import { collectGarbage, type GcResult } from './maintenance/gc.js';
import type { MigrateResult } from './maintenance/migrate-store.js';
import type { ServerGrant } from './maintenance/grant-server.js';
import type { Place } from './accounts/team-paths.js';
import { runDoctor } from './maintenance/doctor.js';
import { type FixResult, runFix } from './maintenance/fix.js';
import { isSpeechModel, ModelService } from './models/service.js';
import {
  documentSource,
  getSpan,
  inspectChunk,
  inspectDocument,
  type InspectedChunk,
  type InspectedDocument,
  listDocuments,
} from './read/inspect.js';
import { anyIndexed, documentCounts, type Facets, indexFacets } from './read/facets.js';
import { libraryPage } from './read/library.js';
import { indexStatus } from './read/status.js';
import { searchIndex } from './search/pipeline.js';
import { searching } from './search-traffic.js';
import { Searcher } from './search/search.js';
import { registerPathMatch } from './store/doc-filter.js';
import { VectorService } from './vectors/service.js';
import { RerankService } from './rerank/service.js';
import { defaultImportName } from './embed/spec.js';
import { SettingsService } from './settings/service.js';
import type { SettingKey, SettingSet, Settings } from '../shared/settings.js';

export type { CollectionInfo, FixResult, GcResult, IngestCallOptions, InspectedChunk, InspectedDocument };
import type { OpenEngineOptions } from './engine-options.js';
export type { OpenEngineOptions };

type Progress = { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void };

/** A long-lived host merges the word indexes once the writes have stopped this long. */
const MERGE_QUIET_MS = 3000;

export class Engine {
  readonly #core: Core;
  readonly #searcher: Searcher;
  readonly #vectors: VectorService;
  /** The heavy units' tops, kept up with the word index. */
  readonly #tops: TopsUpkeep;
  /** The SQLite store's own upkeep (its FTS5 index's merges); null on PostgreSQL. */
  readonly #merge: MergeUpkeep | null;
  readonly #reranker: RerankService;
  readonly #speech: SpeechService;
  readonly #ingest: IngestService;
  readonly #collections: CollectionService;
  readonly #models: ModelService;
  readonly #settings: SettingsService;
  readonly #accounts: AccountService;
  readonly #link: TeamLink;
  readonly #configProblems: string[];
  /** The log this engine opened itself (closed with it); a host's log stays the host's. */
  readonly #ownLog: Log | null;
  #closed = false;
  /** Set by keepUp(): the left-over work of ingests, done by itself. */
  #upkeep: Upkeep | null = null;
  /** Set by watchStore(): what stops hearing of other processes' changes. */
  #stopWatching: (() => Promise<void>) | null = null;
  /** Set by keepUp(): the upgrade of an index a migration left work in (maintenance/upgrade.ts). */
  #upgrading: Promise<void> | null = null;

  /** Use openEngine(): it checks the config and opens the data dir. */
  constructor(core: Core, opts: OpenEngineOptions) {
    this.#core = core;
    this.#ownLog = opts.log ? null : core.log;
    this.#configProblems = opts.configProblems ?? [];
    const db = core.sqlite;
    if (db) registerPathMatch(db);
    const words = wordIndexOf(core);
    this.#searcher = new Searcher(words.source, core.store.reads, core.config, (sha) => core.blobs.file(sha));
    core.onWordsChanged(() => this.#searcher.lexical.invalidate());
    this.#vectors = new VectorService(core, opts.reconcile === true);
    this.#tops = new TopsUpkeep(core, words.source, words.tops, words.at);
    this.#merge = db ? new MergeUpkeep(core, db, () => this.#tops.backgroundWork() !== null) : null;
    upgradeIfSmall(core);
    this.#reranker = new RerankService(core);
    this.#accounts = new AccountService(core);
    this.#link = new TeamLink(core);
    this.#speech = new SpeechService(core, opts.transcriber);
    this.#ingest = new IngestService(core, this.#speech, this.#vectors);
    this.#collections = new CollectionService(
      core,
      this.#vectors,
      (p, o) => this.ingest(p, o),
      (p) => this.remove(p),
    );
    this.#models = new ModelService(core, this.#speech);
    this.#settings = new SettingsService(core);
  }

  get dataDir(): string {
    return this.#core.dataDir;
  }
  get config(): Config {
    return this.#core.config;
  }

  // Documents in and out
  ingest = async (paths: string[], opts: IngestCallOptions = {}): Promise<IngestSummary> => {
    await this.#accounts.assertMayAdd(paths);
    const confine = await this.#accounts.confinement();
    // The tops wait for the words to be written, not for the passages to be embedded: meanwhile every
    // search scored the chunks they had not seen, 11,000 of them after 1,500 notes, and past DELTA_MAX
    // the word index answered alone.
    this.#tops.hold();
    let held = true;
    const release = (): void => {
      if (held) this.#tops.release();
      held = false;
    };
    try {
      return await this.#ingest.ingest(paths, { ...opts, ...(confine ? { confine } : {}), wordsWritten: release });
    } finally {
      this.#upkeep?.kick(); // a cancel, or a pass a crash cut short, may have left work behind
      release();
      this.#merge?.maintain();
    }
  };
  /**
   * Adds files to a collection as copies in its folder (kb ingest --collection, a drop onto a
   * collection): a team's user only from inside the collections they edit, and only into one of them.
   */
  ingestInto = async (collection: string, paths: string[], opts: IngestCallOptions = {}): Promise<IngestSummary> => {
    await this.#accounts.assertMayAdd(paths);
    await this.#accounts.assertMayAddTo(collection);
    return this.ingest(await this.#collections.copyInto(collection, paths), opts);
  };
  /**
   * For long-lived hosts: tells `onChange` when another process changed the index's documents (on a
   * shared store, another machine), at most once a second. Stops with the engine.
   */
  watchStore = async (onChange: () => void): Promise<void> => {
    const stop = await this.#core.store.watch(onChange);
    this.#stopWatching = stop;
    if (this.#closed) await stop();
  };
  /**
   * For long-lived hosts (the app's worker, kb serve, kb watch): do the work ingests left behind (OCR
   * of waiting scans, transcripts once a speech model is there, vectors) now and whenever more may be
   * left, telling `onEvent` how it goes. A one-shot command never calls it.
   */
  keepUp = (onEvent: (e: BackgroundEvent) => void = () => undefined): void => {
    this.#upkeep ??= new Upkeep((o) => this.#ingest.leftovers(o), this.#core.log);
    this.#upkeep.listen(onEvent);
    this.#upkeep.kick();
    this.#tops.maintain(); // an index from before the tops, or one another process grew
    this.#merge?.waitForQuiet(MERGE_QUIET_MS);
    this.#merge?.maintain();
    this.#upgrading ??= upgradeInBackground(this.#core, onEvent, () => this.#closed).finally(() => {
      this.#upgrading = null;
    });
  };
  /** Removes one document by id or path, every document under a folder path, or these ids, and their vectors. */
  remove = (idOrPath: string | { ids: string[] }): Promise<RemoveResult> =>
    removeDocuments(this.#core, this.#vectors, idOrPath, (paths) => this.#accounts.assertMayAdd(paths, 'remove documents')).finally(() =>
      this.#merge?.maintain(),
    );
  /** Transcribes what waited for a speech model (after one is installed, or when a host opens). */
  transcribePending = (opts: IngestCallOptions = {}): ReturnType<IngestService['transcribePending']> =>
    this.#ingest.transcribePending(opts);

  // Finding and reading
  search = (params: SearchParams): Promise<SearchResult> =>
    searching(() => searchIndex({ core: this.#core, searcher: this.#searcher, vectors: this.#vectors, reranker: this.#reranker }, params));
  /**
   * A grounded answer from the documents through the configured Ollama model (ask/ask.ts), streaming
   * its sources and tokens to onProgress. Loaded on first use: searching never loads the LLM client.
   */
  ask = async (call: {
    question: string;
    top?: number;
    signal?: AbortSignal;
    onProgress?: (p: AskProgress) => void;
  }): Promise<AskResult> => {
    const [{ ask }, { thresholdsFor }] = await Promise.all([import('./ask/ask.js'), import('./ask/gate.js')]);
    return ask(this, { ...this.config.ask, gate: thresholdsFor(this.config) }, { ...call, top: call.top ?? this.config.ask.top });
  };
  /** What one rare word matched once scores in BM25 on this index: the unit the ask gate measures evidence in. */
  evidenceUnit = (): Promise<number> => this.#searcher.lexical.idf(1);
  list = (): Promise<DocumentSummary[]> => listDocuments(this.#core);
  /** The Library a page at a time: sorted, filtered and counted here, not by the window. */
  libraryPage = (p: DocumentPageParams): Promise<DocumentPage> => libraryPage(this.#core, p);
  documentPaths = (): Promise<string[]> => this.#core.store.tables.documents.paths();
  /** The types and tags a search can be narrowed to (kb tui's Tab). */
  facets = (): Promise<Facets> => indexFacets(this.#core);
  /** Documents searchable or waiting, and those that failed (the app's footer). */
  documentCounts = (): Promise<{ documents: number; failed: number }> => documentCounts(this.#core);
  /** A document at its start, as a hit the viewer opens (a Library row). */
  openDocument = (docId: string): Promise<SearchHit> => this.#searcher.atStart(docId);
  /** Whether anything at all can be found (kb tui says how to add files when not). */
  anyIndexed = (): Promise<boolean> => anyIndexed(this.#core);
  inspectDoc = (idOrPath: string): Promise<InspectedDocument> => inspectDocument(this.#core, idOrPath);
  inspectChunk = (id: string): Promise<InspectedChunk> => inspectChunk(this.#core, id);
  source = (docId: string): Promise<DocumentSource> => documentSource(this.#core, docId);
  get = (target: string, maxChars?: number): Promise<Span> => getSpan(this.#core, target, maxChars);
  /** A structured document rendered for the viewer at a citation fragment (read/view.ts). */
  view = async (docId: string, at?: string, q?: string): Promise<DocView> =>
    (await import('./read/view.js')).viewDocument(this.#core, docId, at, q);
  /** `teamUser`: a team's reader or editor asks (read/team-view.ts). */
  status = (teamUser = false): Promise<KbStatus> =>
    indexStatus(this.#core, { vectors: this.#vectors, speech: this.#speech, collections: this.#collections }, teamUser);

  // Collections
  addCollection = (
    folder: string,
    opts: Progress & { name?: string; tags?: string[]; glob?: string; many?: boolean } = {},
  ): Promise<{ collection: CollectionInfo; reconciled: ReconcileResult }> => this.#collections.add(folder, opts);
  collections = (): Promise<CollectionInfo[]> => this.#collections.list();
  /** The collections as a team user's view of paths names them (AccountService.places). */
  places = (readable: boolean): Promise<Place[]> => this.#accounts.places(readable);
  forgetCollection = (name: string): Promise<{ collection: string; removed: number }> => this.#collections.forget(name);
  leavingCollection = (name: string): Promise<{ collection: string; documents: number; names: string[] }> =>
    this.#collections.leaving(name);
  reconcileCollections = (opts: Progress = {}): Promise<ReconcileResult[]> => this.#collections.reconcileAll(opts);
  watchCollections = (opts: WatchOptions = {}): Promise<CollectionWatcher> => this.#collections.watch(opts);

  // Vectors
  reindex = (opts: { model?: string; onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {}): Promise<ReindexResult> =>
    this.#vectors.reindex(opts);
  /** Embeds chunks without vectors and drops vectors without chunks; null without a model. */
  syncVectors = (): Promise<{ embedded: number; deleted: number } | null> => this.#vectors.sync();
  /** The chunk ids that have vectors (for doctor and the crash tests), or null without a model. */
  vectorIds = (): Promise<string[] | null> => this.#vectors.ids();
  /** Background work still running (building or updating the vector index), for a CLI about to exit. */
  backgroundWork = (): Promise<void> | null => {
    const work = [
      this.#vectors.backgroundWork(),
      this.#tops.backgroundWork() ?? null,
      this.#merge?.backgroundWork() ?? null,
      this.#upgrading,
    ].filter((w) => w !== null);
    return work.length > 0 ? Promise.all(work).then(() => undefined) : null;
  };

  // A team's accounts (a shared store's): users, grants, the audit trail
  get accounts(): AccountService {
    return this.#accounts;
  }
  /** The team server this machine's app is connected to, if any. */
  get link(): TeamLink {
    return this.#link;
  }

  // Models
  listModels = async (): Promise<ModelsList> => {
    const { search, rerank, audio } = this.config;
    const in_use = { embedding: this.#vectors.model, speech: audio.model, reranker: search.rerank ? rerank.model : null };
    return { ...(await this.#models.list()), in_use };
  };
  /**
   * The one model API, either kind by name (whisper-… is a speech model; a file imports as one, a folder
   * as an embedding model or reranker): the Models view, kb models and the tests alike.
   */
  pullModel = (
    name: string,
    opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {},
  ): Promise<ModelInfo | SpeechModelInfo> => this.#models.pullAny(name, opts);
  importModel = (path: string, as?: string): Promise<ModelInfo | SpeechModelInfo> =>
    this.#models.importAny(path, as, defaultImportName(this.config.embedding));
  removeModel = (name: string): Promise<void> => this.#models.removeAny(name);
  /**
   * kb models use: a speech model becomes audio.model (from the next start: the transcriber is bound
   * to its model); a reranker becomes rerank.model (search.rerank on); an embedding model is switched
   * to, re-embedding if needed.
   */
  useModel = async (
    name: string,
    opts: { onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {},
  ): Promise<{ kind: 'reranker' | 'speech'; model: string; config_updated: string } | ({ kind: 'embedding' } & ReindexResult)> => {
    if (isSpeechModel(name)) {
      await this.#models.checkSpeech(name);
      const { file } = await this.#settings.set('audio.model', name);
      return { kind: 'speech', model: name, config_updated: file };
    }
    if (await this.#models.isReranker(name)) {
      await this.#models.checkReranker(name);
      await this.#settings.set('rerank.model', name);
      const { file } = await this.#settings.set('search.rerank', true);
      return { kind: 'reranker', model: name, config_updated: file };
    }
    return { kind: 'embedding', ...(await this.#vectors.use(name, opts)) };
  };
  /**
   * What a model's arrival starts: audio that waited for this speech model is transcribed; with the
   * configured embedding model, every chunk is embedded (search turns hybrid when it is done).
   */
  modelArrived = (
    name: string,
    opts: { onVectors?: (p: ReindexProgress) => void; onAudio?: (p: IngestProgress) => void } = {},
  ): ReturnType<ModelService['arrived']> =>
    this.#models.arrived(name, { reindex: (o) => this.reindex(o), transcribe: (o) => this.transcribePending(o) }, opts);

  // Settings (the app's Settings view)
  settings = (): Promise<Settings> => this.#settings.get();
  setSetting = async (key: SettingKey, value: string | number | boolean): Promise<SettingSet> => {
    const r = await this.#settings.set(key, value);
    // New OCR languages may read the pages the old ones could not.
    if (key === 'ocr.languages') this.#upkeep?.kick();
    return r;
  };

  // Upkeep
  doctor = (): Promise<DoctorReport> => runDoctor(this.#core, this.#vectors, this.#tops, this.#configProblems);
  fix = (opts: { onProgress?: (p: ReindexProgress) => void } = {}): Promise<FixResult> =>
    runFix(
      this.#core,
      this.#vectors,
      this.#tops,
      () => this.doctor(),
      (paths) => this.ingest(paths, { force: true }),
      opts,
    );
  gc = (): Promise<GcResult> => collectGarbage(this.#core, this.#vectors);
  /** kb migrate: this data dir's SQLite index copied into a PostgreSQL database (kept here as it is). */
  migrateTo = async (url: string, opts: { onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {}): Promise<MigrateResult> =>
    (await import('./maintenance/migrate-store.js')).migrateStore(this.#core, url, opts);

  grantServer = async (role: string): Promise<ServerGrant> => (await import('./maintenance/grant-server.js')).grantServer(this.#core, role);

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#upkeep?.stop();
    this.#tops.stop();
    this.#merge?.stop();
    this.#ingest.close();
    this.#speech.release();
    this.#vectors.close();
    this.#reranker.close();
    this.#link.close();
    const { store } = this.#core;
    const stopWatching = this.#stopWatching ?? (async () => undefined);
    if (store.kind === 'sqlite') {
      void stopWatching();
      try {
        store.db.pragma('optimize');
      } catch {
        // optimize is advisory
      }
      store.db.close();
    } else void stopWatching().finally(() => store.close()); // the watch's connection first: the pool waits for it
    void this.#ownLog?.close();
  }
}
