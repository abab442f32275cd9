// Keeps the heavy units' tops (tops.ts) up with the index: after each ingest, and once when a
// long-lived host opens an index built before them. The work runs on a thread with its own
// connection (tops-thread.ts); searches go on meanwhile, reading FTS5 until the tops have caught up.
import { Worker } from 'node:worker_threads';
import { KbError, type ErrorCode } from '../../shared/errors.js';
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import type { TopsPort } from '../store/port.js';
import { SerialJob } from '../serial-job.js';
import { threadEntry } from '../threads.js';
import { TOPS_INDEX_FACTOR, topsDepth, type TopsModel } from './tops.js';
import { type TopsStoreAt, topsWork, type TopsUpdateResult, type TopsWork, updateTops } from './tops-update.js';
import type { WordSource } from './word-source.js';

export class TopsUpkeep {
  private failure: string | null = null;
  private thread: Worker | null = null;
  /** What the last update did. */
  private last: TopsUpdateResult | null = null;
  private readonly job: SerialJob;
  /** Ingests under way: an update waits for them all to end. */
  private holds = 0;

  constructor(
    private readonly core: Core,
    /** The word index whose statistics the tops are ranked with. */
    private readonly words: WordSource,
    /** Where the tops are kept, and where the update thread opens the store. */
    private readonly port: TopsPort,
    private readonly at: TopsStoreAt,
  ) {
    this.job = new SerialJob(
      async () => {
        await this.once();
        this.failure = null;
      },
      (e) => {
        this.failure = (e as Error).message;
        this.core.log.warn(errorFields(e), 'updating the tops of heavy words failed');
      },
    );
  }

  /** Why the last update failed, if it did (searches of heavy words are slower until one succeeds). */
  get error(): string | null {
    return this.failure;
  }

  /** Starts an update unless one is running (then another follows it). */
  maintain(): void {
    if (!this.core.readOnly) this.job.ask();
  }

  backgroundWork(): Promise<void> | null {
    return this.job.active;
  }

  /**
   * An ingest starts: an update under way is dropped and none starts until every ingest has ended. A
   * first build reads every chunk for minutes on the second core; beside a big ingest it cut the
   * ingest's rate by a third.
   */
  hold(): void {
    this.holds++;
    void this.thread?.terminate();
  }

  /** An ingest ended: the update it held back runs now. */
  release(): void {
    this.holds = Math.max(0, this.holds - 1);
    if (this.holds === 0) this.maintain();
  }

  /** The engine closes: an update under way is dropped (the next one starts over from what was written). */
  stop(): void {
    this.job.stop();
    void this.thread?.terminate();
  }

  /** What an update would do now, and how many units the tops hold (kb doctor). */
  async status(): Promise<{ work: TopsWork; units: number; minChunks: number }> {
    const { work } = await this.plan();
    return { work, units: await this.port.units(), minChunks: TOPS_INDEX_FACTOR * this.minDf() };
  }

  /** Brings the tops up to date now (kb doctor --fix); the error, if it failed. */
  async catchUp(): Promise<TopsUpdateResult | null> {
    this.failure = null;
    this.maintain();
    await this.job.active;
    if (this.failure) throw new KbError('INTERNAL', this.failure);
    return this.last;
  }

  /** search.tops_min_df as this store's word index feels it. */
  private minDf(): number {
    return Math.max(1, Math.round(this.core.config.search.tops_min_df / this.words.scoringCost));
  }

  private async plan(): Promise<{ work: TopsWork; shape: TopsShape }> {
    await this.words.refresh();
    const { n: chunks, ...ranking } = this.words.stats.fieldModel();
    const model = this.words.prefixesByStem ? { ...ranking, stemPrefixes: true } : ranking;
    const shape = { model, chunks, minDf: this.minDf(), depth: topsDepth(this.words.scoringCost) };
    return { work: await topsWork(this.port, shape.model, chunks, shape.minDf, shape.depth), shape };
  }

  private async once(): Promise<void> {
    if (this.holds > 0) return;
    const { work, shape } = await this.plan();
    this.last = null;
    if (work === 'none' || work === 'current') return;
    const started = Date.now();
    let result: TopsUpdateResult;
    try {
      result =
        work === 'clear'
          ? await updateTops(this.port, shape.model, shape.chunks, shape.minDf, shape.depth)
          : await onThread(this.at, shape, (w) => (this.thread = w)).finally(() => (this.thread = null));
    } catch (e) {
      if (this.holds > 0) return; // dropped for an ingest: not a failure
      throw e;
    }
    if (result.kind !== 'none') this.core.log.info({ ...result, ms: Date.now() - started }, 'tops of heavy words');
    this.last = result;
  }
}

/** What an update is asked for: the model and chunk count it ranks with, the units' threshold, the entries per unit. */
interface TopsShape {
  model: TopsModel;
  chunks: number;
  minDf: number;
  depth: number;
}

function onThread(store: TopsStoreAt, shape: TopsShape, started: (w: Worker) => void): Promise<TopsUpdateResult> {
  const entry = threadEntry('search/tops-thread');
  if (!entry) return Promise.reject(new KbError('INTERNAL', 'the tops thread is not in this build'));
  return new Promise((resolve, reject) => {
    const worker = new Worker(entry.url, { execArgv: entry.execArgv, workerData: { store, ...shape } });
    started(worker);
    worker.once('message', (m: { result?: TopsUpdateResult; error?: { code: ErrorCode; message: string } }) => {
      if (m.result) resolve(m.result);
      else reject(new KbError(m.error?.code ?? 'INTERNAL', m.error?.message ?? 'the tops thread failed'));
    });
    worker.once('error', reject);
    // After a message this rejects nothing: the promise is settled.
    worker.once('exit', (code) => reject(new Error(`the tops thread exited with code ${code} before it answered`)));
  });
}
