// Each person's share of kb serve. The engine's processes take requests in the order they come: one
// client sending two thousand searches at once made another person's single search wait 9.5 s on a
// team server, and its own searches ran out their deadline waiting (an outsider's walk, issue 50). So
// at most IN_FLIGHT of one person's requests are at the engine at a time — their next waits here, in
// order, for one of them to end — and another person's request goes ahead of everything they have
// waiting. Long calls (those that report progress: an ingest, ask, a model's download) hold no turn,
// so a person's own ingest never holds their searches. A person is their token (the owner: none).
import { API, type Caller, type Method, type Params, type Result } from '../../shared/api.js';
import { KbError } from '../../shared/errors.js';
import type { Requester } from '../../shared/supervisor.js';

/** One person's requests at the engine at once: a page searching as its person types, and its Library. */
export const IN_FLIGHT = 4;
/** One person's requests waiting at most; past it one is refused (BUSY), never kept. */
export const WAITING = 256;

interface Person {
  running: number;
  waiting: { start: () => void; drop: () => void }[];
}

export class UserTurns {
  private readonly people = new Map<string, Person>();
  private nextId = 1;
  /** This class's request ids → how to cancel that call, waiting or running. */
  private readonly open = new Map<number, () => void>();

  constructor(private readonly inner: Requester) {}

  /** Whose turns a connection's requests take: its token's user, or the owner. */
  static personOf(caller: Caller | undefined): string {
    if (!caller) return '';
    return 'token' in caller ? `token:${caller.token}` : `user:${caller.user}`;
  }

  /** The requester one person's connections use. */
  for(person: string): Requester {
    return {
      request: (method, params, onProgress, caller) => this.request(person, method, params, onProgress, caller),
      cancel: (id) => this.open.get(id)?.(),
    };
  }

  private request<M extends Method>(
    person: string,
    method: M,
    params: Params<M>,
    onProgress: ((data: unknown) => void) | undefined,
    caller: Caller | undefined,
  ): { id: number; result: Promise<Result<M>> } {
    const id = this.nextId++;
    if (API[method].progress !== null) {
      const call = this.inner.request(method, params, onProgress, caller);
      this.open.set(id, () => this.inner.cancel(call.id));
      return { id, result: call.result.finally(() => this.open.delete(id)) };
    }
    const p = this.people.get(person) ?? { running: 0, waiting: [] };
    this.people.set(person, p);
    const result = new Promise<Result<M>>((resolve, reject) => {
      const start = (): void => {
        p.running++;
        const call = this.inner.request(method, params, onProgress, caller);
        this.open.set(id, () => this.inner.cancel(call.id));
        call.result.then(resolve, reject).finally(() => this.release(person, p, id));
      };
      const drop = (): void => {
        this.open.delete(id);
        reject(new KbError('CANCELLED', `${method} was cancelled before it started`));
      };
      if (p.running < IN_FLIGHT) start();
      else if (p.waiting.length >= WAITING) {
        reject(new KbError('BUSY', `you have ${WAITING} requests waiting on this server already: wait for them, or cancel some`));
      } else {
        const turn = { start, drop };
        p.waiting.push(turn);
        this.open.set(id, () => {
          const at = p.waiting.indexOf(turn);
          if (at >= 0) {
            p.waiting.splice(at, 1);
            drop();
          }
        });
      }
    });
    return { id, result };
  }

  private release(person: string, p: Person, id: number): void {
    this.open.delete(id);
    p.running--;
    const next = p.waiting.shift();
    if (next) next.start();
    else if (p.running === 0) this.people.delete(person);
  }
}
