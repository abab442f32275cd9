// The worker's message loop: requests in, responses and progress events out, over any transport (an
// Electron utilityProcess port, a Node child-process channel, a WebSocket bridge). Every incoming
// message and its params are validated against the contract in src/shared/api.ts; a bad one gets an
// error response, never a crash. Requests run concurrently; a search answers while an ingest runs.
import type { EventArgs, EventData, EventName } from '../shared/events.js';
import {
  API,
  type Caller,
  type CallOptions,
  ClientMessageSchema,
  type KbClient,
  METHODS,
  type Method,
  type ServerMessage,
} from '../shared/api.js';
import { KbError, toErrorPayload } from '../shared/errors.js';
import type { Engine } from './engine.js';
import { errorFields, type Log, silentLog } from './log.js';
import { describeIssues } from '../shared/issues.js';
import { ACCESS, mayCall } from '../shared/access.js';
import { actingFor } from './acting.js';
import type { Account } from './accounts/service.js';
import { inTeamView, TeamPaths } from './accounts/team-paths.js';
import { type Call, handlers } from './handlers.js';

export interface Transport {
  send(msg: ServerMessage): void;
  onMessage(handler: (msg: unknown) => void): void;
}

function isMethod(m: string): m is Method {
  return Object.hasOwn(API, m);
}

/**
 * The engine as an in-process client of the contract (kb's commands, kb tui, kb mcp): the same
 * handlers the loop serves over a transport, the same checks of each call's params (a bad one is
 * INVALID_ARGUMENT in the same words), no serialising — with what a host that ends adds: the events
 * a window would hear, and a wait for the work calls left running.
 */
export type LocalClient = KbClient & {
  on<E extends EventName>(event: E, handler: (data: EventData<E>) => void): () => void;
  /**
   * Resolves once the work calls left running after they answered is done — a model's follow-on
   * transcription or embedding, the vector index's upkeep after an ingest. A command waits here
   * before it closes the engine, so it never leaves that work half done.
   */
  settled(): Promise<void>;
};

export function localClient(engine: Engine, version: string, log: Log = silentLog): LocalClient {
  const listeners = new Map<EventName, Set<(data: never) => void>>();
  const running = new Set<Promise<unknown>>();
  const broadcast = (...[event, data]: EventArgs): void => listeners.get(event)?.forEach((h) => (h as (d: typeof data) => void)(data));
  const started = (work: Promise<unknown>): void => {
    running.add(work);
    void work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
  };
  const handle = handlers(engine, version, broadcast, log, started);
  const never = new AbortController().signal;
  const call =
    (method: Method) =>
    async (params: unknown, opts: CallOptions = {}): Promise<unknown> => {
      const checked = API[method].params.safeParse(params ?? {});
      if (!checked.success) throw new KbError('INVALID_ARGUMENT', `${method}: ${describeIssues(checked.error)}`);
      // Each handler takes its own method's params; the map is indexed by the method name.
      const run = handle[method] as (p: unknown, c: Call) => Promise<unknown>;
      return run(checked.data, { signal: opts.signal ?? never, progress: opts.onProgress ?? (() => undefined), who: null });
    };
  const on: LocalClient['on'] = (event, handler) => {
    const set = listeners.get(event) ?? new Set();
    set.add(handler);
    listeners.set(event, set);
    return () => void set.delete(handler);
  };
  const settled = async (): Promise<void> => {
    // Work may start more work (a model's embedding run leaves the vector index's upkeep behind).
    for (;;) {
      const upkeep = engine.backgroundWork();
      const work = upkeep ? [...running, upkeep] : [...running];
      if (work.length === 0) return;
      await Promise.allSettled(work);
    }
  };
  // One function per method, each answering with its method's result type (api.ts).
  const methods = Object.fromEntries(METHODS.map((m) => [m, call(m)])) as unknown as KbClient;
  return Object.assign(methods, { on, settled });
}

/** The account a host asks for: by token (checked on every call), or a user it vouches for. */
async function callerOf(engine: Engine, caller: Caller): Promise<Account> {
  const who = 'token' in caller ? await engine.accounts.authenticate(caller.token) : await engine.accounts.account(caller.user);
  if (!who)
    throw new KbError('UNAUTHENTICATED', 'this kb server does not know that token: ask its admin for a new one (kb users token NAME)');
  return who;
}

/**
 * How long a call may run before it is answered TIMEOUT (search.deadline_ms), or null: reads only —
 * ask waits on a language model, and writes (an ingest) run as long as their files take.
 */
function deadlineOf(engine: Engine, method: Method): number | null {
  return ACCESS[method] === 'read' && method !== 'ask' ? engine.config.search.deadline_ms : null;
}

/** Serves `engine` over `transport` until the process ends. */
export function serveEngine(engine: Engine, transport: Transport, version: string, log: Log = silentLog): void {
  const handle = handlers(engine, version, (...[event, data]) => transport.send({ type: 'event', event, data }), log);
  const running = new Map<number, AbortController>();
  const fail = (id: number, e: unknown): void => transport.send({ type: 'response', id, error: toErrorPayload(e) });

  transport.onMessage((raw) => {
    const parsed = ClientMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const id = typeof (raw as { id?: unknown } | null)?.id === 'number' ? (raw as { id: number }).id : -1;
      fail(id, new KbError('INVALID_ARGUMENT', `not a request: ${describeIssues(parsed.error)}`));
      return;
    }
    const msg = parsed.data;
    if (msg.type === 'cancel') {
      running.get(msg.id)?.abort();
      return;
    }
    const { id, method } = msg;
    if (!isMethod(method)) {
      fail(id, new KbError('NOT_FOUND', `no method ${method}; there are: ${Object.keys(API).join(', ')}`));
      return;
    }
    const params = API[method].params.safeParse(msg.params ?? {});
    if (!params.success) {
      fail(id, new KbError('INVALID_ARGUMENT', `${method}: ${describeIssues(params.error)}`));
      return;
    }
    const ctl = new AbortController();
    running.set(id, ctl);
    // Each handler takes its own method's params; the map is indexed by the checked method name.
    const run = handle[method] as (p: unknown, c: Call) => Promise<unknown>;
    const started = performance.now();
    const progress = (data: unknown): void => transport.send({ type: 'event', id, event: 'progress', data });
    const answer = msg.caller
      ? callerOf(engine, msg.caller).then((who) => {
          if (!mayCall(who.role, method))
            throw new KbError(
              'FORBIDDEN',
              `${method} is not for ${who.role === 'reader' ? 'a' : 'an'} ${who.role}: ask an admin of this kb server`,
            );
          // Every statement this call sends, however deep, is the user's (acting.ts); a signed-in
          // page's or client's sees the server's folders as its collections (team-paths.ts).
          const caller = msg.caller!;
          return actingFor(who.name, async () =>
            'token' in caller
              ? inTeamView(
                  new TeamPaths(await engine.places(who.role !== 'admin'), engine.dataDir),
                  who.role,
                  params.data,
                  progress,
                  (p, pr) => run(p, { signal: ctl.signal, progress: pr, who }),
                )
              : run(params.data, { signal: ctl.signal, progress, who }),
          );
        })
      : run(params.data, { signal: ctl.signal, progress, who: null });
    // Past its deadline a read is answered and cancelled; whatever it still holds (a PostgreSQL
    // statement) is stopped by its own timeout, so no one request keeps the engine for everyone.
    const limit = deadlineOf(engine, method);
    const pastDeadline = (ms: number): KbError =>
      new KbError('TIMEOUT', `${method} ran past its deadline (${ms / 1000} s, search.deadline_ms) and was stopped: narrow it`);
    const late =
      limit === null
        ? null
        : new Promise<never>((_, reject) => {
            const timer = setTimeout(() => {
              ctl.abort();
              reject(pastDeadline(limit));
            }, limit);
            void answer.finally(() => clearTimeout(timer)).catch(() => undefined);
          });
    const failed = (e: unknown): void => {
      // Cancelled requests and a user's bad input are the caller's to show; the rest are kb's.
      const f = errorFields(e);
      const level = f.code === 'INVALID_ARGUMENT' || f.code === 'NOT_FOUND' || f.code === 'QUERY_INVALID' ? 'debug' : 'warn';
      log[level]({ method, id, ...f }, 'request failed');
      fail(id, e);
    };
    (late ? Promise.race([answer, late]) : answer)
      .then((result) => {
        const took = performance.now() - started;
        // Work that never gave the thread back finishes before its timer can fire: late all the same.
        if (limit !== null && took > limit) return failed(pastDeadline(limit));
        log.debug({ method, id, took_ms: Math.round(took) }, 'request answered');
        transport.send({ type: 'response', id, result });
      }, failed)
      .finally(() => running.delete(id));
  });
}
