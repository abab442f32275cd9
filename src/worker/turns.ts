// Taking turns on the engine's thread. A request whose work grows with what it asks (a path glob
// matched against every document, a thousand hits read back, many words corrected) gives the thread
// back every SLICE_MS: another person's search, which arrives meanwhile, then waits a slice, not the
// whole request (`npm run bench -- hostile`: beside an attacker on SQLite, where every statement runs
// on this thread). Short requests never reach a slice and never yield.
const SLICE_MS = 4;

let sliceStarted = performance.now();

const nextTurn = (): Promise<void> =>
  new Promise((resolve) =>
    setImmediate(() => {
      sliceStarted = performance.now();
      resolve();
    }),
  );

/** Call between units of long work: yields to whatever waits once the thread has run a slice. */
export function turn(): Promise<void> | undefined {
  return performance.now() - sliceStarted >= SLICE_MS ? nextTurn() : undefined;
}

/** `items` filtered in turns. */
export async function filterInTurns<T>(items: readonly T[], keep: (item: T) => boolean): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < items.length; i++) {
    if ((i & 63) === 0) await turn();
    if (keep(items[i]!)) out.push(items[i]!);
  }
  return out;
}
