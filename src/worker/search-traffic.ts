// Searches come first. A batch of an ingest's passage embedding holds the CPU for a few hundred ms;
// on a server that is also the database's machine it took the core a team's searches and PostgreSQL
// needed, whatever its thread's priority (the database runs in processes of its own, which a nice
// value does not reach). So the embedding waits for a moment with no search in flight — at most
// MAX_WAIT_MS, so a steady stream of searches only slows an ingest down. An ingest's writes on the
// engine's thread wait for less: for the searches already in flight to end (searchesAhead), since a
// search's steps otherwise queue behind a document's writes and a commit, one after another.
const MAX_WAIT_MS = 1000;
/** An ingest's document waits at most this long for the searches ahead of it (a slow one does not stall it). */
const AHEAD_WAIT_MS = 100;

/** Each search in flight, as a promise that settles when it ends (whether it failed or not). */
const inFlight = new Set<Promise<void>>();
const waiting = new Set<() => void>();
/**
 * How many searches are in flight, where the passage-embedding thread can read it: it waits between
 * two inference runs while a search runs (see pauseForSearches), since on two cores a run beside a
 * search slowed the search more than its priority suggests.
 */
const counter = new Int32Array(new SharedArrayBuffer(4));

/** The shared count of searches in flight, for a thread that should give way to them. */
export function searchCounter(): Int32Array {
  return counter;
}

/** Runs a search, counted as in flight while it runs. */
export async function searching<T>(work: () => Promise<T>): Promise<T> {
  let end: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (end = resolve));
  inFlight.add(ended);
  Atomics.add(counter, 0, 1);
  try {
    return await work();
  } finally {
    inFlight.delete(ended);
    end();
    if (Atomics.sub(counter, 0, 1) === 1) Atomics.notify(counter, 0);
    if (inFlight.size === 0) for (const wake of [...waiting]) wake();
  }
}

/**
 * On another thread: resolves when the shared count says no search is in flight, or after `maxWaitMs`
 * (a steady stream of searches slows the caller down, never stops it).
 */
export async function pauseForSearches(shared: Int32Array, maxWaitMs = MAX_WAIT_MS): Promise<void> {
  const until = performance.now() + maxWaitMs;
  for (let n = Atomics.load(shared, 0); n > 0; n = Atomics.load(shared, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    await Atomics.waitAsync(shared, 0, n, left).value;
  }
}

/** Resolves when no search is in flight, or after `maxWaitMs`. */
export function searchesQuiet(maxWaitMs = MAX_WAIT_MS): Promise<void> {
  if (inFlight.size === 0) return Promise.resolve();
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

/**
 * Resolves when the searches in flight now have ended — not those that start meanwhile, so under a
 * steady stream of searches the caller still takes its turn — or after `maxWaitMs`.
 */
export function searchesAhead(maxWaitMs = AHEAD_WAIT_MS): Promise<void> | undefined {
  if (inFlight.size === 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxWaitMs)));
  return Promise.race([Promise.all([...inFlight]).then(() => undefined), bound]).finally(() => clearTimeout(timer));
}
