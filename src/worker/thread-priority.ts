// Threads that work for an ingest (parsing, embedding passages, ranking the heavy words' tops) run at
// a lower CPU priority than the engine's own thread, which answers searches: on a server a team
// shares, a search waits for an ingest's work only when the CPU has nothing better to do. Threads
// the work starts (onnxruntime's pool) inherit the priority.
import { setPriority } from 'node:os';

/** A nice value: below the engine's thread, not idle-only (an ingest alone still runs at full speed). */
const BACKGROUND_NICE = 10;

/** Lowers the calling thread's priority; on Linux only, which keeps a nice value per thread (macOS and Windows would lower the whole process). */
export function runInBackground(): void {
  if (process.platform !== 'linux') return;
  try {
    setPriority(0, BACKGROUND_NICE);
  } catch {
    // A container may forbid it; the thread then runs as before.
  }
}
