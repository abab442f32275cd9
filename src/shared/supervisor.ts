// Keeps a worker process running and talks to it: numbered requests, responses and progress routed
// back to their callers, restart with backoff when it dies (in-flight calls fail with a clear error
// and everyone hears `engine: restarting`). Pure logic over a small handle interface, so Electron's
// main (utilityProcess) and the web host (child_process) share it, and tests drive it under Node.
import { type Caller, type ClientMessage, type Method, type Params, type Result, ServerMessageSchema } from './api.js';
import { KbError, type ErrorCode } from './errors.js';
import { RpcCalls } from './rpc-client.js';
import { type EventArgs, parseEvent } from './events.js';

export interface WorkerHandle {
  send(msg: ClientMessage): void;
  onMessage(handler: (msg: unknown) => void): void;
  onExit(handler: (code: number | null) => void): void;
  kill(): void;
}

export interface SupervisorOptions {
  /** Events not tied to a request (`ready`, `engine`, …: shared/events.ts), and `engine: restarting` / `engine: ready` from the supervisor. */
  onEvent?: (...event: EventArgs) => void;
  /** First restart delay and cap, in ms; doubles each time the worker dies within a minute of starting. */
  backoff?: { first: number; max: number };
}

export class Supervisor {
  private worker: WorkerHandle | null = null;
  private readonly calls = new RpcCalls((code, message) => new KbError(code as ErrorCode, message));
  private delay: number;
  private startedAt = 0;
  private stopped = false;
  private ready: Promise<void> | null = null;
  /** Requests made while the worker starts: it cannot take messages before it says `ready`. */
  private queued: ClientMessage[] = [];
  private isReady = false;

  constructor(
    private readonly spawn: () => WorkerHandle,
    private readonly opts: SupervisorOptions = {},
  ) {
    this.delay = opts.backoff?.first ?? 250;
  }

  /** Starts the worker; resolves once it says it is ready, rejects if it fails to open the engine. */
  start(): Promise<void> {
    this.ready = new Promise<void>((resolve, reject) => {
      const w = this.spawn();
      this.worker = w;
      this.isReady = false;
      this.startedAt = Date.now();
      w.onMessage((raw) => {
        const parsed = ServerMessageSchema.safeParse(raw);
        if (!parsed.success) return; // not ours: a worker speaks only the contract
        const m = parsed.data;
        if (m.type === 'event' && m.id === undefined) {
          const checked = parseEvent(m.event, m.data);
          if (!checked) return; // an event no one sends, or not its shape: it goes no further
          const [event, data] = checked;
          if (event === 'ready') {
            this.isReady = true;
            for (const q of this.queued.splice(0)) w.send(q);
            resolve();
          }
          if (event === 'failed') reject(new KbError(data.code, data.message));
          this.opts.onEvent?.(...checked);
          return;
        }
        this.calls.receive(m);
      });
      w.onExit((code) => this.exited(w, code, reject));
    });
    return this.ready;
  }

  private exited(w: WorkerHandle, code: number | null, rejectStart: (e: Error) => void): void {
    if (this.worker !== w) return;
    this.worker = null;
    this.queued = [];
    const err = new KbError('INTERNAL', `the engine stopped (exit code ${code}) and is restarting; try again in a moment`);
    rejectStart(err);
    this.calls.failAll(err);
    if (this.stopped) return;
    // A worker that ran for a while gets a quick restart; one that keeps dying waits longer each time.
    if (Date.now() - this.startedAt > 60_000) this.delay = this.opts.backoff?.first ?? 250;
    this.opts.onEvent?.('engine', { state: 'restarting', in_ms: this.delay, exit_code: code });
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.opts.backoff?.max ?? 10_000);
    setTimeout(() => {
      if (this.stopped) return;
      this.start().then(
        () => this.opts.onEvent?.('engine', { state: 'ready' }),
        () => undefined, // its exit schedules the next try
      );
    }, wait);
  }

  /**
   * Calls a method; progress events of this call go to onProgress; `caller` is the team server's user
   * it is for (none: the machine's owner). Returns the id (for cancel) and the answer.
   */
  request<M extends Method>(
    method: M,
    params: Params<M>,
    onProgress?: (data: unknown) => void,
    caller?: Caller,
  ): { id: number; result: Promise<Result<M>> } {
    const { id, result } = this.calls.open(onProgress);
    const w = this.worker;
    if (!w) this.calls.fail(id, new KbError('INTERNAL', 'the engine is restarting; try again in a moment'));
    else {
      const msg: ClientMessage = { type: 'request', id, method, params, ...(caller ? { caller } : {}) };
      if (this.isReady) w.send(msg);
      else this.queued.push(msg);
    }
    // The worker's loop answers each method with its own result type (api.ts).
    return { id, result: result as Promise<Result<M>> };
  }

  /** Whether a request now goes straight to a running worker (not queued, not refused). */
  get available(): boolean {
    return this.worker !== null && this.isReady && !this.stopped;
  }

  /** Ends the worker; it starts again as after a crash (a search process whose settings changed). */
  restart(): void {
    this.isReady = false; // nothing more is sent to the one ending
    this.worker?.kill();
  }

  cancel(id: number): void {
    if (!this.calls.has(id)) return;
    if (this.isReady) this.worker?.send({ type: 'cancel', id });
    else this.queued.push({ type: 'cancel', id });
  }

  stop(): void {
    this.stopped = true;
    this.worker?.kill();
  }
}

/** What a connection sends its calls through: a supervisor, or what stands in front of one (kb serve's search router, each person's turns). */
export type Requester = Pick<Supervisor, 'request' | 'cancel'>;
