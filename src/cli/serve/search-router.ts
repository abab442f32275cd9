// kb serve's searches, spread over its processes. The engine answers on one thread: a request that
// holds it (a Library page filtered over every document, a path glob over every path, a pasted page)
// made every other person's search wait behind it — on SQLite a client sending such requests flat out
// slowed another's searches 2.1× at p95 (npm run bench -- hostile). Search processes (worker/main.ts
// --searcher) open the same index for searching only; a search goes to whichever process has the
// fewest requests in flight, everything else to the main one, so one person's heavy request leaves
// the others a process to search on. They read what the main process wrote as another process's
// writes are read (the chunks' generation, the tops' state, LanceDB's consistency interval, each
// checked per search); what they keep in memory from the settings and the models is renewed by
// restarting them, once idle, after a call that changes it.
import type { Caller, Method, Params, Result } from '../../shared/api.js';
import type { Requester, Supervisor } from '../../shared/supervisor.js';

/** Calls after which a search process's settings, models or schema may be stale. */
const RENEWING: ReadonlySet<Method> = new Set<Method>([
  'settings.set',
  'models.pull',
  'models.import',
  'models.remove',
  'models.use',
  'server.connect',
  'server.disconnect',
  'reindex',
  'doctor.fix',
  'store.migrate',
  // What a user was told of words is kept per user (pg-word-source.ts): a changed grant asks anew.
  'collections.grant',
  'collections.revoke',
  'users.remove',
]);

type Process = Requester & Pick<Supervisor, 'available' | 'restart'>;

interface Lane {
  process: Process;
  inFlight: number;
  /** Settings changed since it started: it takes no search, and restarts once its last one ends. */
  stale: boolean;
}

export class SearchRouter {
  private readonly main: Lane;
  private readonly searchers: Lane[];
  private nextId = 1;
  /**
   * Renewing calls running: meanwhile every search goes to the main process, which alone knows the
   * state of, say, a model switch under way (searches use the old vectors until it is done).
   */
  private renewing = 0;
  /** The router's request ids → the lane and that process's own id (for cancel). */
  private readonly open = new Map<number, { lane: Lane; id: number }>();

  constructor(main: Process, searchers: readonly Process[]) {
    this.main = { process: main, inFlight: 0, stale: false };
    this.searchers = searchers.map((process) => ({ process, inFlight: 0, stale: false }));
  }

  /**
   * The lane a call goes to: a search to the least busy ready process (a search process on a tie; not
   * the main one while it restarts), the rest to the main one.
   */
  private laneFor(method: Method): Lane {
    if (method !== 'search' || this.renewing > 0) return this.main;
    let best: Lane | null = this.main.process.available ? this.main : null;
    for (const s of this.searchers) if (!s.stale && s.process.available && (best === null || s.inFlight <= best.inFlight)) best = s;
    return best ?? this.main;
  }

  request<M extends Method>(
    method: M,
    params: Params<M>,
    onProgress?: (data: unknown) => void,
    caller?: Caller,
  ): { id: number; result: Promise<Result<M>> } {
    const lane = this.laneFor(method);
    const renews = RENEWING.has(method);
    if (renews) this.renewing++;
    const inner = lane.process.request(method, params, onProgress, caller);
    const id = this.nextId++;
    this.open.set(id, { lane, id: inner.id });
    lane.inFlight++;
    const done = (): void => {
      this.open.delete(id);
      lane.inFlight--;
      if (lane.stale && lane.inFlight === 0) this.renew(lane);
      // Whatever it changed (even half-way, when it failed), the search processes start again from it.
      if (renews) {
        this.renewing--;
        for (const s of this.searchers) this.retire(s);
      }
    };
    const result = inner.result.then(
      (r) => {
        done();
        return r;
      },
      (e: unknown) => {
        done();
        throw e;
      },
    );
    return { id, result };
  }

  cancel(id: number): void {
    const o = this.open.get(id);
    if (o) o.lane.process.cancel(o.id);
  }

  /** No more searches for this process: it restarts with the new settings once its last one ends. */
  private retire(lane: Lane): void {
    lane.stale = true;
    if (lane.inFlight === 0) this.renew(lane);
  }

  private renew(lane: Lane): void {
    lane.process.restart();
    // Searches go to it again once its supervisor has started it anew (available).
    lane.stale = false;
  }
}
