// An ingest as the engine runs it: the text layers first (committed and searchable as they land),
// then what has to be read from pixels (OCR), then what has to be heard (audio), then the summary made
// final, then vectors. The parse threads and the tesseract worker start on first need and stay until close.
import type { Confinement } from './confine.js';
import type { IngestError, IngestProgress, IngestSummary, ReindexProgress, Transcribed } from '../../shared/wire.js';
import { firstLine, KbError } from '../../shared/errors.js';
import { type Core, diskFull } from '../core.js';
import { errorFields } from '../log.js';
import type { SpeechService } from './speech/speech.js';
import type { VectorService } from '../vectors/service.js';
import { docState } from '../store/doc-state.js';
import type { Ocr } from './ocr/ocr.js';
import type { ParsePool } from './parse-pool.js';
import { asEngine } from '../acting.js';
import { NOT_READ_NAMED } from './context.js';
import type { FileOutcome } from './pipeline.js';

export interface IngestCallOptions {
  tags?: string[];
  /** Parse every file again, even those unchanged since they were indexed. */
  force?: boolean;
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
  /** A team user's bounds (the engine sets it from their grants): see ingest/confine.ts. */
  confine?: Confinement | undefined;
  /** Called once every file's words are written, before passages are embedded (minutes, on a big ingest). */
  wordsWritten?: () => void;
}

export class IngestService {
  private parser?: ParsePool;
  private ocrP?: Promise<Ocr>;
  private ocrLanguages = '';

  constructor(
    private readonly core: Core,
    private readonly speech: SpeechService,
    private readonly vectors: VectorService,
  ) {}

  /** The leftovers pass running now, stopped when an ingest starts (the ingest's own passes take it over). */
  private leftoversRun: { ctl: AbortController; done: Promise<unknown> } | null = null;
  /** Ingests running now: the leftovers pass waits for none of them to be left. */
  private ingesting = 0;

  async ingest(paths: string[], opts: IngestCallOptions = {}): Promise<IngestSummary> {
    if (paths.length === 0) throw new KbError('INVALID_ARGUMENT', 'nothing to ingest: give at least one file or folder');
    const since = Date.now();
    this.ingesting++;
    try {
      // One OCR or transcription pass at a time: a leftovers pass stops after its current page.
      const running = this.leftoversRun;
      if (running) {
        running.ctl.abort();
        await running.done;
      }
      return await this.ingestNow(paths, opts, since);
    } finally {
      this.ingesting--;
    }
  }

  private async ingestNow(paths: string[], opts: IngestCallOptions, since: number): Promise<IngestSummary> {
    const started = performance.now();
    const core = this.core;
    core.assertWritable('add files to it');
    const { ingestPaths, createParsePool, runOcr } = await import('./pipeline.js');
    this.parser ??= createParsePool();
    try {
      const ctx = {
        store: core.store,
        blobs: core.blobs,
        config: core.config,
        parser: this.parser,
        dataDir: core.dataDir,
        speechModelReady: () => this.speech.ready(),
        force: opts.force === true,
        since,
      };
      const retagged: string[] = [];
      const outcomes = new Map<string, FileOutcome>();
      const summary = await ingestPaths(ctx, paths, {
        ...opts,
        onRetag: (id) => retagged.push(id),
        onOutcome: (p, o) => outcomes.set(p, o),
      });
      const late: IngestError[] = [];
      core.wordsChanged();
      if (core.config.ocr.enabled) {
        const ocr = await runOcr({ ...ctx, ocr: () => this.ocr() }, opts);
        if (ocr.pages + ocr.failed + ocr.pending > 0) summary.ocr = { pages: ocr.pages, failed: ocr.failed, pending: ocr.pending };
        late.push(...ocr.errors);
        core.wordsChanged();
      }
      if (core.config.audio.enabled) {
        const t = await this.speech.runPass(opts);
        // Only this batch's files: audio added earlier that still waits is kb ls's to tell.
        let waiting = 0;
        for (const id of await core.store.tables.transcripts.waiting())
          if (outcomes.has((await core.store.tables.documents.byId(id))?.path ?? '')) waiting++;
        if (t.files + t.failed + t.pending + waiting > 0)
          summary.transcribed = { files: t.files, failed: t.failed, pending: t.pending, waiting, ...waitingFor(core, waiting) };
        late.push(...t.errors);
      }
      if (opts.signal?.aborted) await this.forgetUnread(summary, outcomes);
      const { settleSummary } = await import('./settle.js');
      await settleSummary(summary, late, outcomes, async (p) => {
        const d = await core.store.tables.documents.byPath(p);
        const facts = d && (await core.store.tables.documents.withFacts(d.id));
        return facts ? docState(facts) : null;
      });
      opts.wordsWritten?.();
      summary.vector = await this.vectors
        .with(async (sem) => {
          const onProgress = opts.onProgress;
          const sync = await sem.sync({
            ifChanged: true,
            ...(opts.signal ? { signal: opts.signal } : {}),
            ...(onProgress ? { onProgress: (p: ReindexProgress) => onProgress({ phase: 'embed', ...p }) } : {}),
          });
          summary.embedded = sync.embedded;
          await sem.retag(retagged);
          this.vectors.maintain(sem);
          return { status: 'ok' as const };
        })
        .then(
          (r) => ('unavailable' in r ? { status: 'unavailable' as const, reason: r.unavailable } : r),
          // The words are committed and searchable; vectors catch up on the next ingest or open.
          (e: unknown) => {
            core.log.warn(errorFields(e), 'vectors not updated after an ingest');
            return { status: 'unavailable' as const, reason: `vectors not updated (${firstLine(e)}); the next ingest retries` };
          },
        );
      // The whole run, OCR, transcription and vectors included: what the user waited for.
      summary.took_ms = Math.round(performance.now() - started);
      const { added, updated, unchanged, moved, failed, took_ms } = summary;
      core.log.info(
        {
          paths: paths.length,
          added,
          updated,
          unchanged,
          moved,
          failed,
          skipped: summary.skipped.length,
          embedded: summary.embedded ?? 0,
          took_ms,
        },
        'ingest done',
      );
      for (const e of summary.errors) core.log.warn({ path: e.path, code: e.code, err: e.message }, 'a file was not indexed');
      return summary;
    } catch (e) {
      core.log.error({ paths: paths.length, ...errorFields(e) }, 'ingest failed');
      throw diskFull(e, core.dataDir) ?? e;
    } finally {
      core.wordsChanged();
    }
  }

  /**
   * Cancelled: the files this run added whose words were not all read (a photo before its OCR, a
   * recording before its transcript, a PDF with scanned pages still to read) are taken out again, and
   * counted and named as not read: nothing is left half-done, and nothing goes on reading after a
   * Cancel. What earlier runs left waiting stays for the leftovers pass.
   */
  private async forgetUnread(summary: IngestSummary, outcomes: Map<string, FileOutcome>): Promise<void> {
    const { store } = this.core;
    const unread: string[] = [];
    for (const [path, outcome] of outcomes) {
      if (outcome !== 'added') continue;
      const doc = await store.tables.documents.byPath(path);
      const facts = doc && (await store.tables.documents.withFacts(doc.id));
      if (facts && (facts.ocr_pending > 0 || facts.transcript_status === 'pending')) unread.push(path);
    }
    if (unread.length > 0) {
      const blobs = new Set<string>();
      await store.write(async (t) => {
        for (const path of unread) {
          const doc = await t.documents.byPath(path);
          if (!doc) continue;
          const blob = (await t.originals.of(doc.id))?.blob;
          if (blob) blobs.add(blob);
          await t.documents.delete(doc.id);
        }
      });
      // Their stored copies go with them (a dropped file's uploads/ copy stays, to be read again).
      // As the engine: another collection's document, out of this user's sight, may keep the same bytes.
      await asEngine(async () => {
        for (const b of blobs) if (!(await store.tables.originals.keeps(b))) await this.core.blobs.drop(b);
      });
      for (const path of unread) outcomes.set(path, 'skipped');
      summary.added -= unread.length;
    }
    summary.cancelled = true;
    summary.not_read = (summary.not_read ?? 0) + unread.length;
    summary.not_read_paths = [...unread, ...(summary.not_read_paths ?? [])].slice(0, NOT_READ_NAMED);
    if (summary.ocr) summary.ocr.pending = (await store.tables.ocr.pending()).length;
    if (summary.transcribed) summary.transcribed.pending = 0;
  }

  /**
   * The work ingests left behind — pages waiting for OCR, recordings waiting to be transcribed (once
   * a speech model is there), passages without vectors — done now, in that order. Stopped by the
   * signal, or by an ingest starting (which does the same passes itself). Returns what it did.
   */
  async leftovers(
    opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {},
  ): Promise<{ ocr: number; transcribed: number; embedded: number }> {
    const done = { ocr: 0, transcribed: 0, embedded: 0 };
    if (this.ingesting > 0 || this.leftoversRun || this.core.readOnly) return done;
    const ctl = new AbortController();
    const signal = opts.signal ? AbortSignal.any([opts.signal, ctl.signal]) : ctl.signal;
    const work = (async () => {
      const core = this.core;
      const pass = { signal, ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) };
      if (core.config.ocr.enabled && (await core.store.tables.ocr.pending()).length > 0) {
        const { runOcr, createParsePool } = await import('./pipeline.js');
        this.parser ??= createParsePool();
        const ctx = {
          store: core.store,
          blobs: core.blobs,
          config: core.config,
          parser: this.parser,
          dataDir: core.dataDir,
          speechModelReady: () => this.speech.ready(),
          force: false,
        };
        const r = await runOcr({ ...ctx, ocr: () => this.ocr() }, pass);
        done.ocr = r.pages;
        core.wordsChanged();
      }
      if (!signal.aborted && core.config.audio.enabled && this.speech.ready()) {
        const t = await this.speech.runPass(pass);
        done.transcribed = t.files;
      }
      if (!signal.aborted) {
        const onVectors = opts.onProgress;
        const v = await this.vectors.with((sem) =>
          sem.sync({
            ifChanged: true,
            signal,
            ...(onVectors ? { onProgress: (p: ReindexProgress) => onVectors({ phase: 'embed', ...p }) } : {}),
          }),
        );
        if (!('unavailable' in v)) done.embedded = v.embedded;
      }
      return done;
    })();
    this.leftoversRun = { ctl, done: work.catch(() => undefined) };
    try {
      return await work;
    } finally {
      this.leftoversRun = null;
    }
  }

  private ocr(): Promise<Ocr> {
    // ocr.languages changed while the engine runs (Settings): a worker with the new languages.
    if (this.ocrP && this.ocrLanguages !== this.core.config.ocr.languages) {
      void this.ocrP.then(
        (o) => o.close(),
        () => undefined,
      );
      this.ocrP = undefined;
    }
    this.ocrLanguages = this.core.config.ocr.languages;
    const p = (this.ocrP ??= import('./ocr/ocr.js').then((m) => m.Ocr.start(this.core.config.ocr, this.core.dataDir)));
    p.catch(() => {
      if (this.ocrP === p) this.ocrP = undefined; // missing data may be installed later
    });
    return p;
  }

  /**
   * Transcribes what waits for the speech model, then gives the new chunks vectors: after a speech
   * model is installed (kb models pull), and when a long-lived host opens.
   */
  async transcribePending(opts: IngestCallOptions = {}): Promise<Transcribed> {
    if (!this.core.config.audio.enabled) return { files: 0, failed: 0, pending: 0, waiting: 0 };
    const t = await this.speech.runPass(opts);
    // The transcripts are searchable by words already; their vectors catch up on the next ingest.
    if (t.files > 0)
      await this.vectors.sync().catch((e: unknown) => this.core.log.warn(errorFields(e), 'vectors of new transcripts not updated'));
    const waiting = (await this.core.store.tables.transcripts.waiting()).size;
    return { files: t.files, failed: t.failed, pending: t.pending, waiting, ...waitingFor(this.core, waiting) };
  }

  close(): void {
    this.leftoversRun?.ctl.abort();
    void this.parser?.close();
    void this.ocrP?.then(
      (o) => o.close(),
      () => undefined,
    );
  }
}

/** Files left waiting for a speech model are told which one (the configured one) to get. */
function waitingFor(core: Core, waiting: number): { speech_model?: string } {
  return waiting > 0 ? { speech_model: core.config.audio.model } : {};
}
