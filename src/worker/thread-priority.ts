// Threads that work for an ingest (parsing, embedding passages, ranking the heavy words' tops) run at
// a lower CPU priority than the engine's own thread, which answers searches: on a server a team
// shares, a search waits for an ingest's work only when the CPU has nothing better to do. Threads
// the work starts (onnxruntime's pool) inherit the priority.
import { setPriority } from 'node:os';

/**
 * The lowest nice value: a search's thread is given the CPU whenever it wants it (at 10 an ingest's
 * embedding still took a fifth of a team server's CPU from its searches); alone, an ingest still runs
 * at full speed.
 */
export const BACKGROUND_NICE = 19;

/** Lowers the calling thread's priority; on Linux only, which keeps a nice value per thread (macOS and Windows would lower the whole process). */
export function runInBackground(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, BACKGROUND_NICE);
  } catch {
    // A container may forbid it; the thread then runs as before.
  }
}
