// The preload script: the only bridge between a sandboxed, isolated renderer and the app. It exposes
// `window.kb` — one function per contract method plus event subscriptions — and nothing else: no
// ipcRenderer, no Node. Everything it sends is validated again in main (src/main/ipc.ts).
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { ClientMessage, KbPreload, PreloadCallOptions, ServerMessage } from '../shared/api.js';
import { METHOD_NAMES } from '../shared/methods.js';

interface Waiting {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  onProgress?: ((d: unknown) => void) | undefined;
}

const waiting = new Map<number, Waiting>();
const listeners = new Map<string, Set<(d: unknown) => void>>();
let next = 1;

ipcRenderer.on('kb:message', (_e, m: ServerMessage) => {
  if (m.type === 'event' && m.id === undefined) {
    listeners.get(m.event)?.forEach((h) => h(m.data));
    return;
  }
  const w = m.id === undefined ? undefined : waiting.get(m.id);
  if (!w) return;
  if (m.type === 'event') w.onProgress?.(m.data);
  else {
    waiting.delete(m.id);
    if (m.error) w.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
    else w.resolve(m.result);
  }
});

function call(method: string, params: unknown, opts: PreloadCallOptions = {}): Promise<unknown> {
  const id = next++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject, onProgress: opts.onProgress });
    ipcRenderer.send('kb:request', { type: 'request', id, method, params } satisfies ClientMessage);
    opts.onCancelable?.(() => ipcRenderer.send('kb:request', { type: 'cancel', id } satisfies ClientMessage));
  });
}

const bridge: Record<string, unknown> = {
  on(event: string, handler: (d: unknown) => void): () => void {
    const set = listeners.get(event) ?? new Set();
    set.add(handler);
    listeners.set(event, set);
    if (event === 'app:ingest') ipcRenderer.send('kb:app', { action: 'ui-ready' });
    return () => void set.delete(handler);
  },
  app: {
    pathForFile: (file: File): string => webUtils.getPathForFile(file),
    showHit: (hit: unknown): void => ipcRenderer.send('kb:app', { action: 'show-hit', hit }),
    closePanel: (): void => ipcRenderer.send('kb:app', { action: 'close-panel' }),
  },
};
for (const m of METHOD_NAMES) bridge[m] = (params: unknown, opts?: PreloadCallOptions) => call(m, params, opts);

contextBridge.exposeInMainWorld('kb', bridge as KbPreload);
