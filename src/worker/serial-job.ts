// A background job run one at a time (the tops' updates, the word indexes' whole merges): asked again
// while it runs, it runs once more after, so the last ask is always answered and never twice at once.
// It runs as the engine itself, whichever user's request asked for it: it serves everyone.
import { asEngine } from './acting.js';

export class SerialJob {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<void>,
    /** A run that failed (not once stopped): said, and the next ask tries again. */
    private readonly failed: (e: unknown) => void,
  ) {}

  /** The run under way, if any: a host about to exit waits for it. */
  get active(): Promise<void> | null {
    return this.running;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  ask(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = asEngine(() => this.loop()).finally(() => {
      this.running = null;
    });
  }

  /** No run after this one (the engine closes). */
  stop(): void {
    this.stopped = true;
    this.again = false;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.run();
      } catch (e) {
        if (this.stopped) return;
        this.failed(e);
      }
    } while (this.again && !this.stopped);
  }
}
