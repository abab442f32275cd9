// Keeps the word indexes merged (store/fts-merge.ts): after writes that changed enough of the index,
// every index is merged whole in the background, a step at a time on the engine's own connection,
// each step after whatever the engine was asked meanwhile — a search waits one step at most.
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import { chunkMark, FTS_TABLES, markMerged, mergeDue, mergeStep } from '../store/fts-merge.js';

export class MergeUpkeep {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(private readonly core: Core) {}

  /** After writes: starts a whole merge if one is due (checked again after one that is running). */
  maintain(): void {
    if (this.core.readOnly || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  backgroundWork(): Promise<void> | null {
    return this.running;
  }

  /** The engine closes: a merge under way stops after its step (the next one carries on from there). */
  stop(): void {
    this.stopped = true;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const mark = chunkMark(this.core.db);
        if (!mergeDue(this.core.db, mark)) return;
        const started = Date.now();
        const steps = await this.mergeAll();
        if (steps === null) return;
        markMerged(this.core.db, mark);
        this.core.log.info({ steps, ms: Date.now() - started }, 'word indexes merged');
      } catch (e) {
        if (this.stopped) return;
        this.core.log.warn(errorFields(e), 'merging the word indexes failed');
        return;
      }
    } while (this.again && !this.stopped);
  }

  /** Every index merged whole; the steps it took, or null when the engine closed first. */
  private async mergeAll(): Promise<number | null> {
    const { db } = this.core;
    let steps = 0;
    for (const table of FTS_TABLES) {
      for (;;) {
        // Whatever waits (a search) goes first; a transaction of the engine's own is never joined.
        await new Promise((r) => setImmediate(r));
        while (db.open && db.inTransaction && !this.stopped) await new Promise((r) => setTimeout(r, 10));
        if (this.stopped || !db.open) return null;
        if (!mergeStep(db, table)) break;
        steps++;
      }
    }
    return steps;
  }
}
