// The engine facade: the only entry point into storage, ingest and search. The CLI, the worker's
// message loop and the tests all go through it. Heavy parsers load on first ingest, not at open.
import { access, mkdir, stat } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve, sep } from 'node:path';
import { type Config, ConfigSchema, type ConfigInput } from '../shared/config.js';
import { KbError } from '../shared/errors.js';
import { plural } from '../shared/words.js';
import {
  type AskProgress,
  type AskResult,
  type DocumentSource,
  type DocumentSummary,
  type DoctorCheck,
  type DoctorReport,
  type RemoveResult,
  type IngestError,
  type IngestProgress,
  type IngestSummary,
  type ReindexProgress,
  type ReindexResult,
  SCHEMA_VERSION,
  type SearchParams,
  type SearchResult,
  type KbStatus,
  type Span,
} from '../shared/wire.js';
import type { FileProgress } from './embed/download.js';
import type { ModelInfo, ModelStore } from './embed/models.js';
import type { SpeechModelInfo, WhisperStore } from './audio/whisper-store.js';
import type { Ocr } from './ingest/ocr.js';
import type { Segment, Transcriber } from './audio/transcriber.js';
import { transcriptText } from './audio/chunks.js';
import type { ParsePool } from './ingest/parse-pool.js';
import type { FileOutcome } from './ingest/pipeline.js';
import type { Semantic, Unavailable } from './vectors/semantic.js';
import { readBinding } from './vectors/binding.js';
import { BlobStore } from './store/blobs.js';
import { type Db, openDb, schemaVersion } from './store/db.js';
import { type ChunkRow, type DocRow, Repo } from './store/repo.js';
import { registerPathMatch } from './search/filters.js';
import { Searcher } from './search/search.js';
import { whisperModelFile } from './audio/whisper-models.js';
import { docState } from './read/doc-state.js';
import type { ReconcileResult, SyncContext } from './collections/sync.js';
import type { CollectionWatcher, WatchOptions } from './collections/watcher.js';

export interface OpenEngineOptions {
  dataDir: string;
  config?: ConfigInput | Config;
  /** What resolveSettings found wrong with the config files; kb doctor reports it. */
  configProblems?: string[];
  /**
   * Long-lived hosts (the worker, the web host) reconcile SQLite and LanceDB in the background when
   * the vector half first opens: after a crash, chunks without vectors get them. A one-shot CLI search
   * leaves that to the next ingest.
   */
  reconcile?: boolean;
  /**
   * Speech → text for audio and video. Default: whisper.cpp with the installed speech model
   * (audio.model). Tests give a double that returns known segments: no whisper weights exist here.
   */
  transcriber?: () => Transcriber;
}

export interface CollectionInfo {
  name: string;
  root: string;
  tags: string[];
  glob: string | null;
  documents: number;
  failed: number;
  waiting: number;
  added_at: string;
}

export interface IngestCallOptions {
  tags?: string[];
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
}

export interface InspectedDocument {
  schema_version: typeof SCHEMA_VERSION;
  /** The row as stored, with its status in the one vocabulary (see read/doc-state.ts) and the reason. */
  document: DocRow & { reason: string | null; tags: string[] };
  original: { mode: 'copy' | 'reference'; sha256: string; blob_path: string | null; available: boolean } | null;
  chunks: (Omit<ChunkRow, 'anchor'> & { anchor: unknown })[];
  /** Pages read by OCR (an image is page 1): pending, done with tesseract's confidence, or failed. */
  ocr_pages: { page: number; status: string; confidence: number | null; error: string | null }[];
  /** Audio and video: the timed transcript (text has one `[m:ss.s–m:ss.s] words` line per segment). */
  transcript: { status: string; model: string | null; language: string | null; error: string | null; text: string | null } | null;
  errors: { code: string; message: string; at: string }[];
}

export interface InspectedChunk {
  schema_version: typeof SCHEMA_VERSION;
  chunk: Omit<ChunkRow, 'anchor'> & { anchor: unknown };
  document: DocRow & { reason: string | null };
}

export interface GcResult {
  schema_version: typeof SCHEMA_VERSION;
  removed_blobs: number;
  freed_bytes: number;
}

export class Engine {
  readonly repo: Repo;
  readonly blobs: BlobStore;
  private readonly searcher: Searcher;
  private closed = false;
  /** Parse threads, started on the first ingest and kept until close. */
  private parser?: ParsePool;
  /** The tesseract worker, started by the first OCR page and kept until close. */
  private ocrP?: Promise<Ocr>;
  /** The vector half: loaded on first need, and only when the configured model is installed. */
  private semanticP?: Promise<Semantic | Unavailable>;
  /** The live vector table semanticP was opened for; another process's reindex changes it. */
  private semanticTable?: string | null;
  /** The configured embedding model; reindex --model changes it. */
  private embeddingModel: string;
  /** Vector index upkeep running in the background (see Semantic.maintain), and how the last one ended. */
  private upkeep: Promise<void> | null = null;
  private upkeepError: string | null = null;

  constructor(
    readonly dataDir: string,
    readonly config: Config,
    private readonly db: Db,
    private readonly reconcileOnOpen = false,
    private readonly makeTranscriber?: () => Transcriber,
  ) {
    this.repo = new Repo(db);
    this.blobs = new BlobStore(join(dataDir, 'blobs'));
    registerPathMatch(db);
    this.searcher = new Searcher(db, config);
    this.embeddingModel = config.embedding.model;
  }

  /** Set when the data dir cannot be written: searching works, changing the index does not. */
  readOnly = false;
  /** What is wrong with the config files (see resolveSettings), for doctor. */
  configProblems: string[] = [];

  private assertWritable(what: string): void {
    if (this.readOnly) throw new KbError('DATA_DIR', `the data dir ${this.dataDir} is read-only: kb can search it, but cannot ${what}`);
  }

  async ingest(paths: string[], opts: IngestCallOptions = {}): Promise<IngestSummary> {
    if (paths.length === 0) throw new KbError('INVALID_ARGUMENT', 'nothing to ingest: give at least one file or folder');
    this.assertWritable('add files to it');
    const { ingestPaths, createParsePool, runOcr, Ocr } = await import('./ingest/pipeline.js');
    this.parser ??= createParsePool();
    try {
      const ctx = { repo: this.repo, blobs: this.blobs, config: this.config, parser: this.parser, dataDir: this.dataDir, speechModelReady: () => this.speechModelReady() };
      const retagged: string[] = [];
      const outcomes = new Map<string, FileOutcome>();
      const summary = await ingestPaths(ctx, paths, { ...opts, onRetag: (id) => retagged.push(id), onOutcome: (p, o) => outcomes.set(p, o) });
      const late: IngestError[] = [];
      this.searcher.lexical.invalidate();
      // The text layer is committed and searchable; now what has to be read from pixels.
      if (this.config.ocr.enabled) {
        const ocr = await runOcr(
          {
            ...ctx,
            ocr: () => {
              const p = (this.ocrP ??= Ocr.start(this.config.ocr, this.dataDir));
              p.catch(() => {
                if (this.ocrP === p) this.ocrP = undefined; // missing data may be installed later
              });
              return p;
            },
          },
          opts,
        );
        if (ocr.pages + ocr.failed + ocr.pending > 0) summary.ocr = { pages: ocr.pages, failed: ocr.failed, pending: ocr.pending };
        late.push(...ocr.errors);
        this.searcher.lexical.invalidate();
      }
      // Then what has to be heard: audio and video, through the speech model.
      if (this.config.audio.enabled) {
        const t = await this.runTranscriptionPass(opts);
        // Only this batch's files: audio added earlier that still waits is kb ls's to tell.
        const waiting = [...this.repo.waitingTranscripts()].filter((id) => outcomes.has(this.repo.docById(id)?.path ?? '')).length;
        if (t.files + t.failed + t.pending + waiting > 0) summary.transcribed = { files: t.files, failed: t.failed, pending: t.pending, waiting };
        late.push(...t.errors);
        this.searcher.lexical.invalidate();
      }
      const { settleSummary } = await import('./ingest/settle.js');
      settleSummary(summary, late, outcomes, (p) => {
        const d = this.repo.docByPath(p);
        return d ? docState(this.repo.docWithFacts(d.id)!) : null;
      });
      // Lexical chunks are committed and searchable; now their vectors.
      summary.vector = await this.withSemantic(async (sem) => {
        const onProgress = opts.onProgress;
        const sync = await sem.sync({
          ifChanged: true,
          ...(opts.signal ? { signal: opts.signal } : {}),
          ...(onProgress ? { onProgress: (p: ReindexProgress) => onProgress({ phase: 'embed', ...p }) } : {}),
        });
        summary.embedded = sync.embedded;
        await sem.retag(retagged);
        this.maintainVectors(sem);
        return { status: 'ok' as const };
      }).then(
        (r) => ('unavailable' in r ? { status: 'unavailable' as const, reason: r.unavailable } : r),
        // The words are committed and searchable; vectors catch up on the next ingest or open.
        (e: unknown) => ({ status: 'unavailable' as const, reason: `vectors not updated (${firstLine(e)}); the next ingest retries` }),
      );
      return summary;
    } catch (e) {
      throw diskFull(e, this.dataDir) ?? e;
    } finally {
      this.searcher.lexical.invalidate();
    }
  }

  private transcriptOf(docId: string): InspectedDocument['transcript'] {
    const t = this.repo.transcriptOf(docId);
    if (!t) return null;
    const segments = t.segments ? (JSON.parse(t.segments) as Segment[]) : null;
    return { status: t.status, model: t.model, language: t.language, error: t.error, text: segments ? transcriptText(segments) : null };
  }

  /** Whether audio can be transcribed now: a test double, or the configured speech model's file. */
  speechModelReady(): boolean {
    return Boolean(this.makeTranscriber) || existsSync(whisperModelFile(this.dataDir, this.config.audio.model));
  }

  private transcriberP?: Promise<Transcriber>;

  private async runTranscriptionPass(opts: IngestCallOptions) {
    const { runTranscription } = await import('./audio/pass.js');
    // A model installed since these files were added: what waited for it is queued now.
    if (this.speechModelReady()) this.repo.wakeTranscripts();
    return runTranscription(
      {
        repo: this.repo,
        blobs: this.blobs,
        config: this.config,
        model: this.makeTranscriber ? 'test' : this.config.audio.model,
        transcriber: () => {
          const p = (this.transcriberP ??= this.makeTranscriber
            ? Promise.resolve(this.makeTranscriber())
            : import('./audio/transcriber.js').then((m) => m.WhisperProcess.open(whisperModelFile(this.dataDir, this.config.audio.model))));
          p.catch(() => {
            if (this.transcriberP === p) this.transcriberP = undefined; // a model may be installed later
          });
          return p;
        },
      },
      opts,
    );
  }

  /**
   * Transcribes what waits for the speech model, then gives the new chunks vectors: after a speech
   * model is installed (kb models pull), and when a long-lived host opens.
   */
  async transcribePending(opts: IngestCallOptions = {}): Promise<{ files: number; failed: number; pending: number; waiting: number }> {
    if (!this.config.audio.enabled) return { files: 0, failed: 0, pending: 0, waiting: 0 };
    const t = await this.runTranscriptionPass(opts);
    this.searcher.lexical.invalidate();
    if (t.files > 0) await this.syncVectors().catch(() => undefined);
    return { files: t.files, failed: t.failed, pending: t.pending, waiting: this.repo.waitingTranscripts().size };
  }

  private modelInstalled(): boolean {
    return existsSync(join(this.dataDir, 'models', this.embeddingModel, 'tokenizer.json'));
  }

  /** The embedding model and vector table, or why there are none. Never loads onnxruntime without a model. */
  private semantic(): Promise<Semantic | Unavailable> {
    if (!this.modelInstalled()) {
      return Promise.resolve({ unavailable: `no embedding model installed — run: kb models pull ${this.embeddingModel}` });
    }
    const live = readBinding(this.db)?.table ?? null;
    if (this.semanticP && this.semanticTable !== undefined && this.semanticTable !== live) this.dropSemantic();
    if (!this.semanticP) {
      this.semanticTable = undefined;
      const p = import('./vectors/semantic.js').then((m) => m.Semantic.open(this.dataDir, this.db, this.embeddingModel));
      this.semanticP = p;
      // Opening may bind the index to the model; remember the table it actually opened.
      void p.then(
        (s) => {
          if (this.semanticP !== p) return;
          this.semanticTable = readBinding(this.db)?.table ?? null;
          if (this.reconcileOnOpen && 'sync' in s) this.maintainVectors(s, true);
        },
        () => {
          if (this.semanticP === p) this.semanticP = undefined; // a broken model: try again next time
        },
      );
    }
    return this.semanticP;
  }

  private dropSemantic(): void {
    void this.semanticP?.then((s) => ('close' in s ? s.close() : undefined), () => undefined);
    this.semanticP = undefined;
    this.semanticTable = undefined;
  }

  /** Starts vector index upkeep unless it is already running; searches go on meanwhile. */
  private maintainVectors(sem: Semantic, reconcileFirst = false): void {
    if (this.upkeep) return;
    const reconciled = reconcileFirst ? sem.sync({ ifChanged: true }) : Promise.resolve();
    this.upkeep = reconciled
      .then(() => sem.maintain(this.config.embedding.ann_min_rows))
      .then(
        () => {
          this.upkeepError = null;
        },
        (e: unknown) => {
          this.upkeepError = (e as Error).message; // searches still work, only slower; doctor reports it
        },
      )
      .finally(() => {
        this.upkeep = null;
      });
  }

  /** Background work still running (building or updating the vector index), for a CLI about to exit. */
  backgroundWork(): Promise<void> | null {
    return this.upkeep;
  }

  /**
   * Reconciles the two stores: embeds chunks without vectors and drops vectors without chunks (after a
   * crash, or a lost table). Costs two reads when nothing changed since the last full sync.
   */
  async syncVectors(): Promise<{ embedded: number; deleted: number } | null> {
    const sem = await this.semantic();
    if (!('sync' in sem)) return null;
    const r = await sem.sync({ ifChanged: true });
    this.maintainVectors(sem);
    return r;
  }

  /** The chunk ids that have vectors (for doctor and the crash tests), or null without a model. */
  async vectorIds(): Promise<string[] | null> {
    const sem = await this.semantic();
    if (!('sync' in sem)) return null;
    return [...(await sem.store.ids())];
  }

  private syncContext(): SyncContext {
    return {
      repo: this.repo,
      config: this.config,
      dataDir: this.dataDir,
      ingest: (paths, o) => this.ingest(paths, o),
      remove: (path) => this.removeAndSync(path),
      tag: (docIds, tags) => this.tagDocuments(docIds, tags),
    };
  }

  /** Gives documents tags they lack, in the word index and on their vectors; returns how many changed. */
  private async tagDocuments(docIds: string[], tags: string[]): Promise<number> {
    const { tagMissing } = await import('./collections/tag.js');
    const retagged = this.repo.db.transaction(() => tagMissing(this.repo, docIds, tags))();
    if (retagged.length > 0) {
      this.searcher.lexical.invalidate();
      // Vectors carry tags for filtering. If they cannot be updated now, word search still filters
      // by the new tags, and `kb reindex` rewrites the vectors with them.
      await this.withSemantic((sem) => sem.retag(retagged)).catch(() => undefined);
    }
    return retagged.length;
  }

  /** Adds a folder as a collection and brings it in (kb add). */
  async addCollection(
    folder: string,
    opts: { name?: string; tags?: string[]; glob?: string; signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {},
  ): Promise<{ collection: CollectionInfo; reconciled: ReconcileResult }> {
    this.assertWritable('add a collection to it');
    const { defaultName, reconcile, validateNewCollection } = await import('./collections/sync.js');
    const root = resolve(folder);
    const name = opts.name ?? defaultName(root);
    validateNewCollection(this.repo.collections(), root, name, this.dataDir);
    const row = { name, root, tags: (opts.tags ?? []).map((t) => t.trim()).filter(Boolean), glob: opts.glob ?? null, added_at: Date.now() };
    this.repo.addCollection(row);
    const reconciled = await reconcile(this.syncContext(), row, opts);
    return { collection: this.collections().find((c) => c.name === name)!, reconciled };
  }

  /** The collections, with how many documents each holds and how many failed or wait. */
  collections(): CollectionInfo[] {
    const all = this.repo.listDocs().map((d) => ({ path: d.path, status: docState(d).status }));
    return this.repo.collections().map((c) => {
      const dir = c.root.endsWith(sep) ? c.root : c.root + sep;
      const docs = all.filter((d) => d.path.startsWith(dir));
      return {
        name: c.name,
        root: c.root,
        tags: c.tags,
        glob: c.glob,
        documents: docs.length,
        failed: docs.filter((d) => d.status === 'failed').length,
        waiting: docs.filter((d) => d.status === 'waiting').length,
        added_at: new Date(c.added_at).toISOString(),
      };
    });
  }

  /** Stops keeping a folder in sync and removes its documents from the index (the files stay). */
  async forgetCollection(name: string): Promise<{ collection: string; removed: number }> {
    const c = this.repo.collections().find((x) => x.name === name);
    if (!c) throw new KbError('NOT_FOUND', `no collection named ${name}; kb collections lists them`);
    const removed = this.repo.docsUnder(c.root.endsWith(sep) ? c.root : c.root + sep).length > 0 ? (await this.removeAndSync(c.root)).removed.length : 0;
    this.repo.forgetCollection(name);
    return { collection: name, removed };
  }

  /** Reconciles every collection with the disk (on start): what changed while kb was closed. */
  async reconcileCollections(opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {}): Promise<ReconcileResult[]> {
    const { reconcile } = await import('./collections/sync.js');
    const out: ReconcileResult[] = [];
    for (const c of this.repo.collections()) out.push(await reconcile(this.syncContext(), c, opts));
    return out;
  }

  /** Watches every collection until closed; batches of changes are applied as they settle. */
  async watchCollections(opts: WatchOptions = {}): Promise<CollectionWatcher> {
    const { CollectionWatcher } = await import('./collections/watcher.js');
    const w = new CollectionWatcher(this.syncContext(), opts);
    for (const c of this.repo.collections()) await w.add(c);
    return w;
  }

  /**
   * A grounded answer from the documents through the configured Ollama model (ask/ask.ts), streaming
   * its sources and tokens to onProgress. Loaded on first use: searching never loads the LLM client.
   */
  async ask(call: { question: string; top?: number; signal?: AbortSignal; onProgress?: (p: AskProgress) => void }): Promise<AskResult> {
    const { ask } = await import('./ask/ask.js');
    return ask(this, this.config.ask, { ...call, top: call.top ?? this.config.ask.top });
  }

  /**
   * What one rare word matched once scores in BM25 on this index (its idf for a single chunk): the
   * unit the ask gate measures evidence in, so its threshold means the same for any index size.
   */
  evidenceUnit(): number {
    return this.searcher.lexical.idf(1);
  }

  async search(params: SearchParams): Promise<SearchResult> {
    const p = { top: this.config.search.top, ...params };
    if (p.mode === 'lexical') return this.searcher.search(p);
    try {
      const r = await this.withSemantic((sem) => this.searcher.searchWith(p, sem));
      return 'unavailable' in r ? this.searcher.search(p, r.unavailable) : r;
    } catch (e) {
      if (e instanceof KbError) throw e;
      return this.searcher.search(p, `the vector store failed (${firstLine(e)}); searching by words only`);
    }
  }

  /**
   * Runs fn on the vector half. If LanceDB fails (its files replaced or deleted by another process,
   * say), the store is reopened and fn tried once more; a second failure is the caller's to report.
   */
  private async withSemantic<T>(fn: (sem: Semantic) => Promise<T>): Promise<T | Unavailable> {
    for (let attempt = 0; ; attempt++) {
      const sem = await this.semantic();
      if ('unavailable' in sem) return sem;
      try {
        return await fn(sem);
      } catch (e) {
        if (e instanceof KbError) throw e;
        this.dropSemantic();
        if (attempt > 0) throw e;
      }
    }
  }

  /**
   * Embeds every chunk with `model` (default: the configured one) into a new table and switches to it
   * when done. Searches go on against the previous vectors meanwhile. With a new model, the data dir's
   * config.yaml is updated so later runs use it.
   */
  async reindex(opts: { model?: string; onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {}): Promise<ReindexResult> {
    const model = opts.model ?? this.embeddingModel;
    const { reindex } = await import('./vectors/reindex.js');
    const { result, semantic } = await reindex(this.dataDir, this.db, model, { ...opts, annMinRows: this.config.embedding.ann_min_rows });
    let configUpdated: string | null = null;
    if (semantic) {
      this.dropSemantic();
      this.semanticP = Promise.resolve(semantic);
      this.semanticTable = semantic.store.name;
      if (model !== this.embeddingModel) {
        const { setDataDirSetting } = await import('./config/write.js');
        configUpdated = await setDataDirSetting(this.dataDir, ['embedding', 'model'], model);
        this.embeddingModel = model;
      }
    }
    return { schema_version: SCHEMA_VERSION, ...result, config_updated: configUpdated };
  }

  list(): DocumentSummary[] {
    return this.repo.listDocs().map((d) => ({
      doc_id: d.id,
      path: d.path,
      title: d.title,
      type: d.type,
      ...docState(d),
      error: d.error,
      chunks: d.chunk_count,
      tags: this.repo.tagsOf(d.id),
      size: d.size,
      content_hash: d.content_hash,
      original: d.original,
      original_available: d.original === 'copy' || existsSync(d.path),
      updated_at: new Date(d.updated_at).toISOString(),
    }));
  }

  private findDoc(idOrPath: string): DocRow {
    const doc = this.repo.docById(idOrPath) ?? this.repo.docByPath(resolve(idOrPath));
    if (!doc) throw new KbError('NOT_FOUND', `no document with id or path ${idOrPath}`);
    return doc;
  }

  inspectDoc(idOrPath: string): InspectedDocument {
    const doc = this.findDoc(idOrPath);
    const orig = this.repo.originalOf(doc.id);
    const blobPath = orig?.blob ? this.blobs.pathOf(orig.blob) : null;
    return {
      schema_version: SCHEMA_VERSION,
      document: { ...this.docRowWithState(doc.id), tags: this.repo.tagsOf(doc.id) },
      original: orig
        ? {
            mode: orig.mode,
            sha256: orig.sha256,
            blob_path: blobPath,
            available: blobPath ? existsSync(blobPath) : existsSync(doc.path),
          }
        : null,
      chunks: this.repo.chunksOfDoc(doc.id).map((c) => ({ ...c, anchor: JSON.parse(c.anchor) as unknown })),
      ocr_pages: this.repo.ocrOf(doc.id),
      transcript: this.transcriptOf(doc.id),
      errors: this.repo.errorsOf(doc.path).map((e) => ({ code: e.code, message: e.message, at: new Date(e.at).toISOString() })),
    };
  }

  /** The stored row, its status replaced by the one every view shows, and why. */
  private docRowWithState(id: string): DocRow & { reason: string | null } {
    const facts = this.repo.docWithFacts(id)!;
    const { chunk_count: _c, transcript_status: _t, ocr_pending: _p, ocr_failed: _f, latest_failed: _l, ...row } = facts;
    return { ...row, ...docState(facts) };
  }

  inspectChunk(id: string): InspectedChunk {
    const c = this.repo.chunkById(id);
    if (!c) throw new KbError('NOT_FOUND', `no chunk with id ${id}`);
    return {
      schema_version: SCHEMA_VERSION,
      chunk: { ...c, anchor: JSON.parse(c.anchor) as unknown },
      document: this.docRowWithState(c.doc_id),
    };
  }

  /** The file that holds a document's bytes: the stored copy if there is one, else the original. */
  source(docId: string): DocumentSource {
    const doc = this.repo.docById(docId);
    if (!doc || doc.status !== 'indexed') throw new KbError('NOT_FOUND', `no indexed document ${docId}`);
    const orig = this.repo.originalOf(doc.id);
    const blob = orig?.blob ? this.blobs.pathOf(orig.blob) : null;
    const base = { schema_version: SCHEMA_VERSION, doc_id: doc.id, type: doc.type, title: doc.title, name: basename(doc.path) };
    if (blob && existsSync(blob)) return { ...base, file: blob, stale: false };
    let st;
    try {
      st = statSync(doc.path);
    } catch {
      throw new KbError('VANISHED', `${doc.path} is gone and no copy was kept`);
    }
    return { ...base, file: doc.path, stale: st.size !== doc.size || Math.floor(st.mtimeMs) !== doc.mtime };
  }

  /** What this index holds and what it can do (kb status, the MCP status tool). */
  async status(): Promise<KbStatus> {
    const { ollamaFor } = await import('./ask/ask.js');
    const llm = ollamaFor(this.config.ask);
    const n = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      schema_version: SCHEMA_VERSION,
      data_dir: this.dataDir,
      documents: n('SELECT count(*) AS n FROM documents'),
      chunks: n('SELECT count(*) AS n FROM chunks'),
      collections: this.collections().map(({ name, root, documents, failed, waiting }) => ({ name, root, documents, failed, waiting })),
      embedding: { model: this.embeddingModel, installed: this.modelInstalled() },
      speech: { model: this.config.audio.model, installed: this.speechModelReady() },
      llm: { host: llm.host, model: llm.model, ...(await llm.status()) },
    };
  }

  /** The text of a cited span: `notes.md#L12-L34`, `paper.pdf#page=3`, `talk.mp3#t=10,20`, a file:// URI or a doc id with a fragment. */
  async get(target: string, maxChars?: number): Promise<Span> {
    const { readSpan } = await import('./read/span.js');
    return readSpan({ repo: this.repo, source: (id) => this.source(id) }, target, maxChars);
  }

  /** Removes one document by id or path, or every document under a folder path. */
  remove(idOrPath: string): RemoveResult {
    this.assertWritable('remove documents from it');
    let docs: DocRow[];
    const byId = this.repo.docById(idOrPath);
    if (byId) docs = [byId];
    else {
      const abs = resolve(idOrPath);
      const exact = this.repo.docByPath(abs);
      docs = exact ? [exact] : this.repo.listDocs().filter((d) => d.path.startsWith(abs.endsWith(sep) ? abs : abs + sep));
    }
    if (docs.length === 0) throw new KbError('NOT_FOUND', `nothing indexed at ${idOrPath}`);
    this.db.transaction(() => {
      for (const d of docs) this.repo.deleteDoc(d.id);
    })();
    this.searcher.lexical.invalidate();
    return { schema_version: SCHEMA_VERSION, removed: docs.map((d) => ({ doc_id: d.id, path: d.path })) };
  }

  /** remove() and then the vectors of what was removed. */
  async removeAndSync(idOrPath: string): Promise<RemoveResult> {
    const r = this.remove(idOrPath);
    await this.syncVectors();
    return r;
  }

  /** Models live in the data dir; the store (and onnxruntime) load only when a models command runs. */
  private async modelStore(): Promise<ModelStore> {
    const { ModelStore } = await import('./embed/models.js');
    return new ModelStore(join(this.dataDir, 'models'));
  }

  /** The hub address: KB_HF_ENDPOINT, else the config's models.hub_endpoint. */
  hubEndpoint(): string {
    return process.env.KB_HF_ENDPOINT || this.config.models.hub_endpoint;
  }

  async listModels(): Promise<{ schema_version: typeof SCHEMA_VERSION; models: ModelInfo[]; speech_models: SpeechModelInfo[] }> {
    return { schema_version: SCHEMA_VERSION, models: (await this.modelStore()).list(), speech_models: (await this.whisperStore()).list() };
  }

  private async whisperStore(): Promise<WhisperStore> {
    const { WhisperStore } = await import('./audio/whisper-store.js');
    return new WhisperStore(this.dataDir);
  }

  /** Speech models (whisper-…): from the hub, checked against whisper.cpp's published SHA-1. */
  async pullSpeechModel(name: string, opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {}): Promise<SpeechModelInfo> {
    return (await this.whisperStore()).pull(name, this.hubEndpoint(), opts);
  }

  async importSpeechModel(file: string, as?: string): Promise<SpeechModelInfo> {
    return (await this.whisperStore()).import(resolve(file), as);
  }

  async removeSpeechModel(name: string): Promise<void> {
    this.transcriberP?.then((t) => t.close(), () => undefined);
    this.transcriberP = undefined;
    await (await this.whisperStore()).remove(name);
  }

  async pullModel(id: string, opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {}): Promise<ModelInfo> {
    return (await this.modelStore()).pull(id, this.hubEndpoint(), opts);
  }

  async importModel(dir: string, id: string): Promise<ModelInfo> {
    return (await this.modelStore()).import(resolve(dir), id);
  }

  async removeModel(id: string): Promise<void> {
    await (await this.modelStore()).remove(id);
  }

  /**
   * kb doctor --fix: rebuilds what can be rebuilt from what survives. The word indexes are rebuilt from
   * the chunks (the chunks are the truth); a vector table that is gone or unreadable is dropped and
   * every chunk embedded again; vectors of chunks that no longer exist are deleted; originals nothing
   * refers to are collected. The SQLite file itself cannot be rebuilt from anything: if it is damaged,
   * doctor says so and what to do.
   */
  async fix(opts: { onProgress?: (p: ReindexProgress) => void } = {}): Promise<{ schema_version: typeof SCHEMA_VERSION; actions: { name: string; detail: string }[]; report: DoctorReport }> {
    this.assertWritable('repair it');
    const actions: { name: string; detail: string }[] = [];
    const quick = this.db.pragma('quick_check', { simple: true }) as string;
    if (quick !== 'ok') throw new KbError('DB_CORRUPT', `the index file is damaged (${quick}); kb cannot rebuild it from itself: move ${join(this.dataDir, 'kb.sqlite')} away and ingest your folders again (your files and the stored copies in blobs/ are untouched)`);
    let ftsOk = true;
    try {
      this.db.prepare("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')").run();
      this.db.prepare("INSERT INTO chunks_tri(chunks_tri, rank) VALUES ('integrity-check', 1)").run();
      const n = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
      ftsOk = n('SELECT count(*) AS n FROM chunks') === n('SELECT count(*) AS n FROM chunks_fts');
    } catch {
      ftsOk = false;
    }
    if (!ftsOk) {
      // The word index keeps no copy of the text (contentless): it is emptied and every chunk is
      // written into it again by the chunks' own update trigger; the trigram index rebuilds from the chunks.
      this.db.transaction(() => {
        this.db.exec('DELETE FROM chunks_fts');
        this.db.exec('UPDATE chunks SET heading = heading');
        this.db.prepare("INSERT INTO chunks_tri(chunks_tri) VALUES ('rebuild')").run();
      })();
      this.searcher.lexical.invalidate();
      actions.push({ name: 'full-text index', detail: 'rebuilt both word indexes from the chunks' });
    }
    if (this.modelInstalled()) {
      const sync = async (): Promise<{ embedded: number; deleted: number }> => {
        const sem = await this.semantic();
        if (!('sync' in sem)) throw new Error(sem.unavailable);
        return sem.sync({ ifChanged: false, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
      };
      try {
        const r = await sync();
        if (r.embedded + r.deleted > 0) actions.push({ name: 'vectors', detail: `embedded ${plural(r.embedded, 'chunk')} that had none, deleted ${plural(r.deleted, 'vector')} of chunks that are gone` });
      } catch (e) {
        // The table is gone or unreadable: drop what is left of it and embed everything again.
        const binding = readBinding(this.db);
        this.dropSemantic();
        if (binding) {
          const { dropVectorTable } = await import('./vectors/store.js');
          await dropVectorTable(join(this.dataDir, 'vectors'), binding.table).catch(() => undefined);
        }
        const r = await sync();
        actions.push({ name: 'vectors', detail: `the vector table was unreadable (${firstLine(e)}): rebuilt it, ${plural(r.embedded, 'chunk')} embedded` });
      }
    }
    const gc = await this.gc();
    if (gc.removed_blobs > 0) actions.push({ name: 'stored originals', detail: `removed ${gc.removed_blobs} copies nothing refers to (${(gc.freed_bytes / 1048576).toFixed(1)} MB)` });
    return { schema_version: SCHEMA_VERSION, actions, report: await this.doctor() };
  }

  /** Deletes stored originals that no document refers to any more. */
  async gc(): Promise<GcResult> {
    const r = await this.blobs.gc(this.repo.liveBlobs());
    return { schema_version: SCHEMA_VERSION, removed_blobs: r.removed, freed_bytes: r.bytes };
  }

  async doctor(): Promise<DoctorReport> {
    const checks: DoctorCheck[] = [];
    const check = (name: string, fn: () => string | { status: 'warn' | 'fail'; detail: string }): void => {
      try {
        const r = fn();
        checks.push(typeof r === 'string' ? { name, status: 'ok', detail: r } : { name, ...r });
      } catch (e) {
        checks.push({ name, status: 'fail', detail: (e as Error).message });
      }
    };
    checks.push(
      this.configProblems.length === 0
        ? { name: 'config', status: 'ok', detail: 'valid' }
        : { name: 'config', status: 'fail', detail: this.configProblems.join('; ') },
    );
    try {
      await access(this.dataDir, 2 /* W_OK */);
      checks.push({ name: 'data dir', status: 'ok', detail: `${this.dataDir} is writable` });
    } catch {
      checks.push({ name: 'data dir', status: 'fail', detail: `${this.dataDir} is not writable` });
    }
    check('database integrity', () => {
      const r = this.db.pragma('quick_check', { simple: true }) as string;
      return r === 'ok' ? `ok (schema ${schemaVersion(this.db)})` : { status: 'fail', detail: r };
    });
    check('full-text index', () => {
      this.db.prepare("INSERT INTO chunks_fts(chunks_fts) VALUES ('integrity-check')").run();
      this.db.prepare("INSERT INTO chunks_tri(chunks_tri, rank) VALUES ('integrity-check', 1)").run();
      const n = (sql: string): number => (this.db.prepare(sql).get() as { n: number }).n;
      const chunks = n('SELECT count(*) AS n FROM chunks');
      const indexed = n('SELECT count(*) AS n FROM chunks_fts');
      if (indexed !== chunks) return { status: 'fail', detail: `${plural(chunks, 'chunk')} but ${indexed} in the word index` };
      return 'words and trigram indexes agree with the chunks';
    });
    const docs = this.repo.listDocs();
    const states = docs.map((d) => docState(d).status);
    const failed = states.filter((s) => s === 'failed').length;
    const waiting = states.filter((s) => s === 'waiting').length;
    const counted = [failed && `${failed} failed`, waiting && `${waiting} waiting`].filter(Boolean).join(', ');
    checks.push(
      failed + waiting === 0
        ? { name: 'documents', status: 'ok', detail: `${plural(docs.length, 'document')}, none failed or waiting` }
        : { name: 'documents', status: 'warn', detail: `${counted} of ${plural(docs.length, 'document')} (kb ls says why)` },
    );
    let missing = 0;
    for (const d of docs) {
      const o = this.repo.originalOf(d.id);
      if (!o) continue;
      const p = o.blob ? this.blobs.pathOf(o.blob) : d.path;
      try {
        await stat(p);
      } catch {
        missing++;
      }
    }
    checks.push(
      missing === 0
        ? { name: 'originals', status: 'ok', detail: 'every document can be opened' }
        : { name: 'originals', status: 'warn', detail: `${missing === 1 ? "1 document's original is" : `${missing} documents' originals are`} missing (moved or deleted, and not copied)` },
    );
    if (this.config.ocr.enabled) {
      const { ocrLanguagesStatus } = await import('./ingest/ocr.js');
      const langs = ocrLanguagesStatus(this.config.ocr);
      const pending = this.repo.pendingOcr().length;
      checks.push(
        !langs.ok
          ? { name: 'OCR', status: 'warn', detail: `${langs.detail}; images and scanned pages wait until it is there` }
          : pending > 0
            ? { name: 'OCR', status: 'warn', detail: `${plural(pending, 'page')} ${pending === 1 ? 'waits' : 'wait'} for OCR (the next kb ingest reads them); ${langs.detail}` }
            : { name: 'OCR', status: 'ok', detail: langs.detail },
      );
    } else checks.push({ name: 'OCR', status: 'ok', detail: 'off (ocr.enabled: false): images are skipped' });
    const sem = await this.semantic().catch((e: unknown) => ({ unavailable: (e as Error).message }));
    if ('unavailable' in sem) checks.push({ name: 'embedding model', status: 'warn', detail: `${sem.unavailable}; search is lexical only` });
    else {
      const chunks = (this.db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
      const vectors = await sem.store.count();
      checks.push(
        vectors === chunks
          ? { name: 'embedding model', status: 'ok', detail: `${this.embeddingModel}: ${chunks === 1 ? 'the chunk has its vector' : `all ${chunks} chunks have vectors`}` }
          : { name: 'embedding model', status: 'warn', detail: `${this.embeddingModel}: ${plural(vectors, 'vector')} for ${plural(chunks, 'chunk')} (run: kb reindex, or any ingest, to bring them in step)` },
      );
      const index = await sem.store.indexStats();
      const min = this.config.embedding.ann_min_rows;
      checks.push(
        this.upkeepError
          ? { name: 'vector index', status: 'warn', detail: `updating the index failed: ${this.upkeepError}; searches are exact and slower` }
          : index
            ? { name: 'vector index', status: 'ok', detail: `IVF_HNSW_SQ over ${index.indexed} vectors, ${index.unindexed} added since (searched exactly)` }
            : vectors >= min
              ? { name: 'vector index', status: 'warn', detail: `${vectors} vectors and no index yet: the next ingest builds it` }
              : { name: 'vector index', status: 'ok', detail: `none needed below ${min} vectors: searches compare with every vector` },
      );
    }
    const { audioChecks } = await import('./audio/checks.js');
    checks.push(...(await audioChecks(this.config.audio, this.dataDir, this.repo.waitingTranscripts().size)));
    const { ollamaFor } = await import('./ask/ask.js');
    checks.push({ name: 'language model', ...(await ollamaFor(this.config.ask).status()) });
    return { schema_version: SCHEMA_VERSION, ok: checks.every((c) => c.status !== 'fail'), data_dir: this.dataDir, checks };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void this.parser?.close();
    void this.ocrP?.then((o) => o.close(), () => undefined);
    void this.transcriberP?.then((t) => t.close(), () => undefined);
    void this.semanticP?.then((s) => ('close' in s ? s.close() : undefined));
    try {
      this.db.pragma('optimize');
    } catch {
      // optimize is advisory
    }
    this.db.close();
  }
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0]!;
}

/** A full disk as the user should hear it (SQLite says "database or disk is full", Node ENOSPC). */
function diskFull(e: unknown, dataDir: string): KbError | null {
  const code = (e as { code?: string }).code;
  if (code !== 'SQLITE_FULL' && code !== 'ENOSPC') return null;
  return new KbError('DATA_DIR', `the disk holding ${dataDir} is full: free some space, then run the same command again (everything indexed so far is kept)`, { cause: e });
}

export async function openEngine(opts: OpenEngineOptions): Promise<Engine> {
  const parsed = ConfigSchema.safeParse(opts.config ?? {});
  if (!parsed.success) {
    throw new KbError('CONFIG_INVALID', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const dataDir = resolve(opts.dataDir);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new KbError('DATA_DIR', `cannot create the data dir ${dataDir}: ${(e as Error).message}`);
  }
  // A data dir kb may not write (permissions, a read-only mount) is opened for searching only.
  const file = join(dataDir, 'kb.sqlite');
  const writable = await access(dataDir, 2 /* W_OK */).then(
    () => access(file, 2).then(() => true, (e: NodeJS.ErrnoException) => e.code === 'ENOENT'),
    () => false,
  );
  const db = openDb(file, { readonly: !writable && existsSync(file) });
  const engine = new Engine(dataDir, parsed.data, db, opts.reconcile === true, opts.transcriber);
  engine.readOnly = !writable;
  engine.configProblems = opts.configProblems ?? [];
  return engine;
}
