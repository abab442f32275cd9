// window.kb for the browser: the same contract as the desktop app's preload bridge, over the web
// host's WebSocket (same origin; the host's cookie carries the access token).
import type { ClientMessage, KbBridge, Method, ServerMessage } from '../../shared/api';

export class KbError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

interface Waiting {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: ((d: unknown) => void) | undefined;
}

export function connect(url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`): KbBridge {
  let ws: WebSocket;
  let open: Promise<void>;
  const waiting = new Map<number, Waiting>();
  const listeners = new Map<string, Set<(d: unknown) => void>>();
  let next = 1;
  const emit = (event: string, data: unknown): void => listeners.get(event)?.forEach((h) => h(data));

  const dial = (): void => {
    ws = new WebSocket(url);
    open = new Promise((resolve) => ws.addEventListener('open', () => resolve(), { once: true }));
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(String(e.data)) as ServerMessage;
      if (m.type === 'event' && m.id === undefined) return emit(m.event, m.data);
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      if (m.type === 'event') w.onProgress?.(m.data);
      else {
        waiting.delete(m.id);
        if (m.error) w.reject(new KbError(m.error.code, m.error.message));
        else w.resolve(m.result);
      }
    });
    ws.addEventListener('close', () => {
      for (const w of waiting.values()) w.reject(new KbError('INTERNAL', 'lost the connection to kb'));
      waiting.clear();
      emit('engine', { state: 'disconnected' });
      setTimeout(dial, 1000);
    });
  };
  dial();

  const call = async (method: Method, params: unknown, opts: { onProgress?: (d: unknown) => void; signal?: AbortSignal } = {}): Promise<unknown> => {
    await open;
    const id = next++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject, onProgress: opts.onProgress });
      const msg: ClientMessage = { type: 'request', id, method, params };
      ws.send(JSON.stringify(msg));
      opts.signal?.addEventListener('abort', () => ws.send(JSON.stringify({ type: 'cancel', id } satisfies ClientMessage)), { once: true });
    });
  };

  const on = (event: string, handler: (d: unknown) => void): (() => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(handler);
    listeners.set(event, set);
    return () => set.delete(handler);
  };
  // One function per method, whatever the method: the contract's types say which exist.
  const docUrl = (docId: string): string => `/doc/${encodeURIComponent(docId)}`;
  return new Proxy({ on, docUrl } as KbBridge, {
    get: (target, prop) =>
      prop === 'on'
        ? target.on
        : prop === 'docUrl'
          ? target.docUrl
          : prop === 'app' || typeof prop !== 'string'
            ? undefined // no desktop extras in a browser
            : (params: unknown, opts?: object) => call(prop as Method, params, opts),
  });
}
