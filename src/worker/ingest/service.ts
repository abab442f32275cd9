// An ingest as the engine runs it: the text layers first (committed and searchable as they land),
// then what has to be read from pixels (OCR), then what has to be heard (audio), then the summary made
// final, then vectors. The parse threads and the tesseract worker start on first need and stay until close.
import type { IngestError, IngestProgress, IngestSummary, ReindexProgress } from '../../shared/wire.js';
import { firstLine, KbError } from '../../shared/errors.js';
import { type Core, diskFull } from '../core.js';
import { errorFields } from '../log.js';
import type { SpeechService } from '../audio/speech.js';
import type { VectorService } from '../vectors/service.js';
import { docState } from '../read/doc-state.js';
import type { Ocr } from './ocr/ocr.js';
import type { ParsePool } from './parse-pool.js';
import type { FileOutcome } from './pipeline.js';

export interface IngestCallOptions {
  tags?: string[];
  /** Parse every file again, even those unchanged since they were indexed. */
  force?: boolean;
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
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

  async ingest(paths: string[], opts: IngestCallOptions = {}): Promise<IngestSummary> {
    if (paths.length === 0) throw new KbError('INVALID_ARGUMENT', 'nothing to ingest: give at least one file or folder');
    const started = performance.now();
    const core = this.core;
    core.assertWritable('add files to it');
    const { ingestPaths, createParsePool, runOcr } = await import('./pipeline.js');
    this.parser ??= createParsePool();
    try {
      const ctx = { repo: core.repo, blobs: core.blobs, config: core.config, parser: this.parser, dataDir: core.dataDir, speechModelReady: () => this.speech.ready(), force: opts.force === true };
      const retagged: string[] = [];
      const outcomes = new Map<string, FileOutcome>();
      const summary = await ingestPaths(ctx, paths, { ...opts, onRetag: (id) => retagged.push(id), onOutcome: (p, o) => outcomes.set(p, o) });
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
        const waiting = [...core.repo.transcripts.waiting()].filter((id) => outcomes.has(core.repo.documents.byId(id)?.path ?? '')).length;
        if (t.files + t.failed + t.pending + waiting > 0) summary.transcribed = { files: t.files, failed: t.failed, pending: t.pending, waiting };
        late.push(...t.errors);
      }
      const { settleSummary } = await import('./settle.js');
      settleSummary(summary, late, outcomes, (p) => {
        const d = core.repo.documents.byPath(p);
        return d ? docState(core.repo.documents.withFacts(d.id)!) : null;
      });
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
      core.log.info({ paths: paths.length, added, updated, unchanged, moved, failed, skipped: summary.skipped.length, embedded: summary.embedded ?? 0, took_ms }, 'ingest done');
      for (const e of summary.errors) core.log.warn({ path: e.path, code: e.code, err: e.message }, 'a file was not indexed');
      return summary;
    } catch (e) {
      core.log.error({ paths: paths.length, ...errorFields(e) }, 'ingest failed');
      throw diskFull(e, core.dataDir) ?? e;
    } finally {
      core.wordsChanged();
    }
  }

  private ocr(): Promise<Ocr> {
    // ocr.languages changed while the engine runs (Settings): a worker with the new languages.
    if (this.ocrP && this.ocrLanguages !== this.core.config.ocr.languages) {
      void this.ocrP.then((o) => o.close(), () => undefined);
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
  async transcribePending(opts: IngestCallOptions = {}): Promise<{ files: number; failed: number; pending: number; waiting: number }> {
    if (!this.core.config.audio.enabled) return { files: 0, failed: 0, pending: 0, waiting: 0 };
    const t = await this.speech.runPass(opts);
    // The transcripts are searchable by words already; their vectors catch up on the next ingest.
    if (t.files > 0) await this.vectors.sync().catch((e: unknown) => this.core.log.warn(errorFields(e), 'vectors of new transcripts not updated'));
    return { files: t.files, failed: t.failed, pending: t.pending, waiting: this.core.repo.transcripts.waiting().size };
  }

  close(): void {
    void this.parser?.close();
    void this.ocrP?.then((o) => o.close(), () => undefined);
  }
}
