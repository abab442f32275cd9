// What keeps a long-lived engine (the app's worker, kb serve, kb watch) caught up by itself: the work
// an ingest left behind — pages waiting for OCR after a cancel or a crash, recordings whose speech model
// arrived, passages without vectors — run whenever something may have left some: at the start, after
// every ingest, after the OCR languages change. One pass at a time; an ingest stops it and kicks it
// again when done. A one-shot command never starts it: the next engine that runs does the work.
import type { BackgroundEvent } from '../../shared/events.js';
import type { IngestProgress } from '../../shared/wire.js';
import { errorFields, type Log } from '../log.js';
import { asEngine } from '../acting.js';

type Pass = (opts: { onProgress: (p: IngestProgress) => void }) => Promise<{ ocr: number; transcribed: number; embedded: number }>;

const TASK: Record<IngestProgress['phase'], BackgroundEvent['task'] | null> = {
  scan: null,
  ingest: null,
  ocr: 'ocr',
  transcribe: 'transcribing',
  embed: 'embedding',
};

export class Upkeep {
  private running = false;
  private again = false;
  private stopped = false;
  private readonly listeners = new Set<(e: BackgroundEvent) => void>();

  constructor(
    private readonly pass: Pass,
    private readonly log: Log,
  ) {}

  /** Who hears how the work goes (every window of the app, kb watch's terminal). */
  listen(fn: (e: BackgroundEvent) => void): void {
    this.listeners.add(fn);
  }

  /** The engine is closing: nothing more starts, and nothing more is said. */
  stop(): void {
    this.stopped = true;
  }

  private tell(e: BackgroundEvent): void {
    if (!this.stopped) for (const fn of this.listeners) fn(e);
  }

  /** Something may have left work behind: do it now, or right after the pass that is running. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    // Whichever user's ingest kicked it, the work left behind is everyone's.
    void asEngine(() => this.loop());
  }

  private async loop(): Promise<void> {
    let task: BackgroundEvent['task'] | null = null;
    try {
      do {
        this.again = false;
        const did = await this.pass({
          onProgress: (p) => {
            const t = TASK[p.phase];
            if (!t || p.total === 0) return;
            task = t;
            this.tell({ task: t, phase: 'running', done: p.done, total: p.total });
          },
        });
        if (did.ocr + did.transcribed + did.embedded > 0) {
          this.log.info(did, 'left-over work done');
          this.tell({ task: did.ocr > 0 ? 'ocr' : did.transcribed > 0 ? 'transcribing' : 'embedding', phase: 'done', done: 1, total: 1 });
        }
      } while (this.again && !this.stopped);
    } catch (e) {
      if (this.stopped) return; // the engine closed under it
      this.log.error(errorFields(e), 'left-over work (OCR, transcription, vectors) failed');
      this.tell({ task: task ?? 'ocr', phase: 'failed', done: 0, total: 0, message: (e as Error).message });
    } finally {
      this.running = false;
    }
  }
}
