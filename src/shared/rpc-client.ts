// The client half of the RPC contract, shared by every caller of the worker: the supervisor (main and
// the web host), the preload bridge and the browser's WebSocket client. Numbered calls wait for their
// response, progress events reach their call, other events reach listeners. No zod and no Node here:
// the preload and the renderer bundle it.
import type { ServerMessage } from './api.js';
import type { EventData, EventName } from './events.js';

/** The close code kb serve gives a page whose account was removed or whose token was replaced (WebSocket's private range). */
export const SIGNED_OUT_CLOSE = 4001;

/**
 * The one shape of a call's error, wherever the UI or a host meets it: an Error named KbError with the
 * contract's code (shared/errors.ts's KbError, the engine's own, has the same shape).
 */
export interface CallError extends Error {
  name: 'KbError';
  code: string;
}

export function callError(code: string, message: string): CallError {
  return Object.assign(new Error(message), { name: 'KbError' as const, code });
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: ((data: unknown) => void) | undefined;
}

export class RpcCalls {
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(data: unknown) => void>>();
  private nextId = 1;

  /** How a response's error becomes the Error a caller sees: a CallError, unless a host wants its KbError. */
  constructor(private readonly toError: (code: string, message: string) => Error = callError) {}

  /** A new call: its id (to send, and to cancel by) and the promise its response settles. */
  open(onProgress?: (data: unknown) => void): { id: number; result: Promise<unknown> } {
    const id = this.nextId++;
    const result = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject, onProgress }));
    return { id, result };
  }

  /** A message from the worker: a response or progress goes to its call, any other event to listeners. */
  receive(m: ServerMessage): void {
    if (m.type === 'event' && m.id === undefined) {
      // Checked against shared/events.ts by the host that relayed it (the supervisor: parseEvent).
      this.listeners.get(m.event)?.forEach((h) => h(m.data));
      return;
    }
    const p = m.id === undefined ? undefined : this.pending.get(m.id);
    if (!p) return;
    if (m.type === 'event') {
      if (m.event === 'progress') p.onProgress?.(m.data);
      return;
    }
    this.pending.delete(m.id);
    if (m.error) p.reject(this.toError(m.error.code, m.error.message));
    else p.resolve(m.result);
  }

  /** Whether a call is still waiting for its response. */
  has(id: number): boolean {
    return this.pending.has(id);
  }

  /** Fails one call without a response (it could not be sent). */
  fail(id: number, error: Error): void {
    this.pending.get(id)?.reject(error);
    this.pending.delete(id);
  }

  /** Fails every waiting call: the connection or the worker is gone. */
  failAll(error: Error): void {
    for (const p of this.pending.values()) p.reject(error);
    this.pending.clear();
  }

  on<E extends EventName>(event: E, handler: (data: EventData<E>) => void): () => void {
    const set = this.listeners.get(event) ?? new Set();
    const h = handler as (data: unknown) => void;
    set.add(h);
    this.listeners.set(event, set);
    return () => void set.delete(h);
  }

  /** An event raised on this side (a browser's connection lost and found again). */
  emit<E extends EventName>(event: E, data: EventData<E>): void {
    this.listeners.get(event)?.forEach((h) => h(data));
  }
}
