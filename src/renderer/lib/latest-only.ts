// Search as you type without a debounce delay: a query goes out at once when none is in flight;
// while one is, only the newest waiting query is kept and sent when it returns. So a pause in
// typing gets results immediately, fast typing never queues up work, and an answer to an older
// query never replaces one to a newer query.
export interface LatestOnly<P> {
  submit(params: P): void;
  /** Forget what is waiting and ignore answers still on their way (the query was cleared). */
  clear(): void;
}

export function latestOnly<P, R>(run: (p: P) => Promise<R>, deliver: (r: R) => void, fail: (e: Error) => void): LatestOnly<P> {
  let seq = 0;
  let shown = 0;
  let busy = false;
  let waiting: { p: P; n: number } | null = null;
  const go = (p: P, n: number): void => {
    busy = true;
    run(p)
      .then(
        (r) => {
          if (n > shown) {
            shown = n;
            deliver(r);
          }
        },
        (e: Error) => {
          if (n === seq) fail(e);
        },
      )
      .finally(() => {
        busy = false;
        const next = waiting;
        waiting = null;
        if (next) go(next.p, next.n);
      });
  };
  return {
    submit(p) {
      const n = ++seq;
      if (busy) waiting = { p, n };
      else go(p, n);
    },
    clear() {
      shown = ++seq;
      waiting = null;
    },
  };
}
