// Keeps the word indexes merged (store/fts-merge.ts): once enough chunks were deleted since the last
// time, every index is merged whole in the background, a small step at a time on the engine's own
// connection with a pause after each, so a search waits one short step at most. A long-lived host
// merges once the writes have stopped for a while: a run of removals is merged once, not once each.
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import { SerialJob } from '../serial-job.js';
import { chunkMark, FTS_TABLES, markMerged, mergeDue, mergeStep } from '../store/fts-merge.js';
import type { Db } from '../store/db.js';

/** Pause after each step: a step of 100 pages takes ~6 ms at a million passages; searches go between. */
const PAUSE_MS = 20;

/** How often a merge waiting for a long read looks again. */
const QUIET_POLL_MS = 500;

// Not unref'd: a one-shot command waits for the merge (backgroundWork), and a process whose only
// pending work is an unref'd timer exits there, before the command has set its exit code.
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class MergeUpkeep {
  private lastWrite = 0;
  /** How long the writes must have stopped before a merge starts (0: at once, as a one-shot command wants). */
  private quietMs = 0;
  private readonly job: SerialJob;

  constructor(
    private readonly core: Core,
    /** The SQLite store's database, whose FTS5 indexes are merged. */
    private readonly db: Db,
    /**
     * Whether a long read is under way elsewhere (the tops' update, reading every chunk): a merge
     * then waits, as the WAL cannot be checkpointed past that reader and would grow by all the merge
     * writes (8 GB once, during a million-passage build).
     */
    private readonly reading: () => boolean = () => false,
  ) {
    this.job = new SerialJob(
      () => this.once(),
      (e) => this.core.log.warn(errorFields(e), 'merging the word indexes failed'),
    );
  }

  /** A long-lived host: merge only after this long without writes. */
  waitForQuiet(ms: number): void {
    this.quietMs = ms;
  }

  /** After writes: a whole merge if one is due (checked again after one that is running). */
  maintain(): void {
    if (this.core.readOnly) return;
    this.lastWrite = Date.now();
    this.job.ask();
  }

  backgroundWork(): Promise<void> | null {
    return this.job.active;
  }

  /** The engine closes: a merge under way stops after its step (the next one carries on from there). */
  stop(): void {
    this.job.stop();
  }

  private async once(): Promise<void> {
    for (let quiet = Date.now() - this.lastWrite; quiet < this.quietMs && !this.job.isStopped; quiet = Date.now() - this.lastWrite)
      await sleep(this.quietMs - quiet);
    while (this.reading() && !this.job.isStopped) await sleep(QUIET_POLL_MS);
    if (this.job.isStopped) return;
    const mark = chunkMark(this.db);
    if (!mergeDue(this.db, mark)) return;
    const started = Date.now();
    const steps = await this.mergeAll();
    if (steps === null) return;
    markMerged(this.db, mark);
    this.core.log.info({ steps, ms: Date.now() - started }, 'word indexes merged');
  }

  /** Every index merged whole; the steps it took, or null when the engine closed first. */
  private async mergeAll(): Promise<number | null> {
    const db = this.db;
    let steps = 0;
    for (const table of FTS_TABLES) {
      for (;;) {
        // Whatever waits (a search) goes first; a transaction of the engine's own is never joined.
        await sleep(PAUSE_MS);
        while (db.open && db.inTransaction && !this.job.isStopped) await sleep(PAUSE_MS);
        if (this.job.isStopped || !db.open) return null;
        if (!mergeStep(db, table)) break;
        steps++;
      }
    }
    return steps;
  }
}
