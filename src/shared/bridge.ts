// One UI connection to the supervised worker: the part the web host (a WebSocket) and Electron's main
// (IPC from a window) share. Each incoming message is checked against the contract — its shape, its
// method and that method's params — before it is forwarded; the UI's own request ids are mapped to
// the supervisor's, progress is relayed, and closing the connection cancels what it left running.
import { API, type Caller, ClientMessageSchema, type Method, type Params, type ServerMessage } from './api.js';
import { toErrorPayload } from './errors.js';
import type { Requester } from './supervisor.js';
import { describeIssues } from './issues.js';

export interface BridgeSession {
  /** A raw message from the UI (already parsed from JSON, or as IPC delivered it). */
  receive(raw: unknown): void;
  /** The UI went away: cancel everything it started. */
  close(): void;
}

/**
 * `caller` is whom the host signed this connection in as (a team server's user); every request is
 * sent for them, whatever the UI's message says — a UI cannot name its own caller.
 */
export function openBridgeSession(supervisor: Requester, send: (m: ServerMessage) => void, caller?: Caller): BridgeSession {
  const mine = new Map<number, number>(); // the UI's id → the supervisor's
  const idOf = (raw: unknown): number => {
    const id = (raw as { id?: unknown } | null)?.id;
    return typeof id === 'number' && Number.isInteger(id) ? id : -1;
  };
  return {
    receive(raw) {
      const parsed = ClientMessageSchema.safeParse(raw);
      if (!parsed.success) {
        send({
          type: 'response',
          id: idOf(raw),
          error: { code: 'INVALID_ARGUMENT', message: `not a request: ${describeIssues(parsed.error)}` },
        });
        return;
      }
      const m = parsed.data;
      if (m.type === 'cancel') {
        const inner = mine.get(m.id);
        if (inner !== undefined) supervisor.cancel(inner);
        return;
      }
      if (!Object.hasOwn(API, m.method)) {
        send({ type: 'response', id: m.id, error: { code: 'NOT_FOUND', message: `no method ${m.method}` } });
        return;
      }
      const method = m.method as Method;
      const params = API[method].params.safeParse(m.params ?? {});
      if (!params.success) {
        send({ type: 'response', id: m.id, error: { code: 'INVALID_ARGUMENT', message: `${method}: ${describeIssues(params.error)}` } });
        return;
      }
      if (mine.has(m.id)) {
        send({ type: 'response', id: m.id, error: { code: 'INVALID_ARGUMENT', message: `request id ${m.id} is already running` } });
        return;
      }
      const call = supervisor.request(
        method,
        params.data as Params<Method>,
        (data) => send({ type: 'event', id: m.id, event: 'progress', data }),
        caller,
      );
      mine.set(m.id, call.id);
      call.result
        .then(
          (result) => send({ type: 'response', id: m.id, result }),
          (e: unknown) => send({ type: 'response', id: m.id, error: toErrorPayload(e) }),
        )
        .finally(() => mine.delete(m.id));
    },
    close() {
      for (const inner of mine.values()) supervisor.cancel(inner);
      mine.clear();
    },
  };
}
