// The worker's message loop: requests in, responses and progress events out, over any transport (an
// Electron utilityProcess port, a Node child-process channel, a WebSocket bridge). Every incoming
// message and its params are validated against the contract in src/shared/api.ts; a bad one gets an
// error response, never a crash. Requests run concurrently; a search answers while an ingest runs.
import { API, ClientMessageSchema, type Method, type Params, type ServerMessage } from '../shared/api.js';
import { KbError, toErrorPayload } from '../shared/errors.js';
import { SCHEMA_VERSION } from '../shared/wire.js';
import type { Engine } from './engine.js';
import { errorFields, type Log, silentLog } from './log.js';
import { describeIssues } from '../shared/issues.js';

export interface Transport {
  send(msg: ServerMessage): void;
  onMessage(handler: (msg: unknown) => void): void;
}

interface Call {
  signal: AbortSignal;
  progress: (data: unknown) => void;
}

type Handlers = { [M in Method]: (params: Params<M>, call: Call) => Promise<unknown> };

function handlers(engine: Engine, version: string): Handlers {
  return {
    status: async () => ({ schema_version: SCHEMA_VERSION, ready: true, data_dir: engine.dataDir, version }),
    search: (p) => engine.search(p),
    ingest: (p, c) => engine.ingest(p.paths, { tags: p.tags ?? [], signal: c.signal, onProgress: c.progress }),
    list: async () => ({ schema_version: SCHEMA_VERSION, documents: engine.list() }),
    remove: (p) => engine.remove(p.target),
    doctor: () => engine.doctor(),
    source: async (p) => engine.source(p.doc_id),
    reindex: (p, c) => engine.reindex({ ...(p.model ? { model: p.model } : {}), signal: c.signal, onProgress: c.progress }),
    ask: (p, c) => engine.ask({ question: p.question, ...(p.top ? { top: p.top } : {}), signal: c.signal, onProgress: c.progress }),
  };
}

function isMethod(m: string): m is Method {
  return Object.hasOwn(API, m);
}

/** Serves `engine` over `transport` until the process ends. */
export function serveEngine(engine: Engine, transport: Transport, version: string, log: Log = silentLog): void {
  const handle = handlers(engine, version);
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
    const call: Call = { signal: ctl.signal, progress: (data) => transport.send({ type: 'event', id, event: 'progress', data }) };
    // Each handler takes its own method's params; the map is indexed by the checked method name.
    const run = handle[method] as (p: unknown, c: Call) => Promise<unknown>;
    const started = performance.now();
    run(params.data, call).then(
      (result) => {
        log.debug({ method, id, took_ms: Math.round(performance.now() - started) }, 'request answered');
        transport.send({ type: 'response', id, result });
      },
      (e: unknown) => {
        // Cancelled requests and a user's bad input are the caller's to show; the rest are kb's.
        const f = errorFields(e);
        const level = f.code === 'INVALID_ARGUMENT' || f.code === 'NOT_FOUND' || f.code === 'QUERY_INVALID' ? 'debug' : 'warn';
        log[level]({ method, id, ...f }, 'request failed');
        fail(id, e);
      },
    ).finally(() => running.delete(id));
  });
}
