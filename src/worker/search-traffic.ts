// Searches come first. A batch of an ingest's passage embedding holds the CPU for a few hundred ms;
// on a server that is also the database's machine it took the core a team's searches and PostgreSQL
// needed, whatever its thread's priority (the database runs in processes of its own, which a nice
// value does not reach). So the embedding waits for a moment with no search in flight — at most
// MAX_WAIT_MS, so a steady stream of searches only slows an ingest down.
const MAX_WAIT_MS = 1000;

let inFlight = 0;
const waiting = new Set<() => void>();

/** Runs a search, counted as in flight while it runs. */
export async function searching<T>(work: () => Promise<T>): Promise<T> {
  inFlight++;
  try {
    return await work();
  } finally {
    inFlight--;
    if (inFlight === 0) for (const wake of [...waiting]) wake();
  }
}

/** Resolves when no search is in flight, or after `maxWaitMs`. */
export function searchesQuiet(maxWaitMs = MAX_WAIT_MS): Promise<void> {
  if (inFlight === 0) return Promise.resolve();
  return new Promise((resolve) => {
    const wake = (): void => {
      waiting.delete(wake);
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(wake, maxWaitMs);
    waiting.add(wake);
  });
}
