// window.kb for the browser: the same contract as the desktop app's preload bridge, over the web
// host's WebSocket (same origin; the host's cookie carries the access token).
import type { ClientMessage, KbBridge, Method, ServerMessage } from '../../shared/api';
import { callError, RpcCalls, SIGNED_OUT_CLOSE } from '../../shared/rpc-client';

export function connect(url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`): KbBridge {
  let ws: WebSocket;
  let open: Promise<void>;
  const calls = new RpcCalls();

  // Once connected, a lost connection is said at once (calls fail, `engine: disconnected`) and dialled
  // again every second; the server kb serve restarts for the same data dir takes the same cookie.
  let connected = false;
  let lost = false;
  const dial = (): void => {
    ws = new WebSocket(url);
    open = new Promise((resolve) =>
      ws.addEventListener(
        'open',
        () => {
          connected = true;
          if (lost) calls.emit('engine', { state: 'ready', reconnected: true });
          lost = false;
          resolve();
        },
        { once: true },
      ),
    );
    ws.addEventListener('message', (e) => calls.receive(JSON.parse(String(e.data)) as ServerMessage));
    ws.addEventListener('close', (e) => {
      // The server closed it because this account was removed or its token replaced: to sign-in.
      if (e.code === SIGNED_OUT_CLOSE) {
        location.assign('/?signed_out=1');
        return;
      }
      const was = connected;
      connected = false;
      calls.failAll(callError('INTERNAL', 'lost the connection to kb'));
      if (was || lost) {
        lost = true;
        calls.emit('engine', { state: 'disconnected' });
      }
      setTimeout(dial, 1000);
    });
  };
  dial();

  const call = async (
    method: Method,
    params: unknown,
    opts: { onProgress?: (d: unknown) => void; signal?: AbortSignal } = {},
  ): Promise<unknown> => {
    if (lost) throw callError('INTERNAL', 'lost the connection to kb: reconnecting…');
    await open;
    const { id, result } = calls.open(opts.onProgress);
    ws.send(JSON.stringify({ type: 'request', id, method, params } satisfies ClientMessage));
    opts.signal?.addEventListener('abort', () => ws.send(JSON.stringify({ type: 'cancel', id } satisfies ClientMessage)), { once: true });
    return result;
  };

  const on: KbBridge['on'] = (event, handler) => calls.on(event, handler);
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
