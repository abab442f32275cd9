// The preload script: the only bridge between a sandboxed, isolated renderer and the app. It exposes
// `window.kb` — one function per contract method plus event subscriptions — and nothing else: no
// ipcRenderer, no Node. Everything it sends is validated again in main (src/main/ipc.ts).
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { ClientMessage, KbPreload, PreloadCallOptions, ServerMessage } from '../shared/api.js';
import { METHOD_NAMES } from '../shared/methods.js';
import { RpcCalls } from '../shared/rpc-client.js';

const calls = new RpcCalls((code, message) => Object.assign(new Error(message), { code }));
ipcRenderer.on('kb:message', (_e, m: ServerMessage) => calls.receive(m));

function call(method: string, params: unknown, opts: PreloadCallOptions = {}): Promise<unknown> {
  const { id, result } = calls.open(opts.onProgress);
  ipcRenderer.send('kb:request', { type: 'request', id, method, params } satisfies ClientMessage);
  opts.onCancelable?.(() => ipcRenderer.send('kb:request', { type: 'cancel', id } satisfies ClientMessage));
  return result;
}

const bridge: Record<string, unknown> = {
  on(event: string, handler: (d: unknown) => void): () => void {
    const off = calls.on(event, handler);
    if (event === 'app:ingest') ipcRenderer.send('kb:app', { action: 'ui-ready' });
    return off;
  },
  app: {
    pathForFile: (file: File): string => webUtils.getPathForFile(file),
    showHit: (hit: unknown): void => ipcRenderer.send('kb:app', { action: 'show-hit', hit }),
    closePanel: (): void => ipcRenderer.send('kb:app', { action: 'close-panel' }),
    pick: (kind: 'files' | 'folder'): Promise<string[]> => ipcRenderer.invoke('kb:app-invoke', { action: 'pick', kind }) as Promise<string[]>,
    openDocument: (doc_id: string, how: 'open' | 'reveal'): Promise<void> => ipcRenderer.invoke('kb:app-invoke', { action: 'open-document', doc_id, how }) as Promise<void>,
    openUri: (uri: string): Promise<void> => ipcRenderer.invoke('kb:app-invoke', { action: 'open-uri', uri }) as Promise<void>,
    revealDataDir: (): Promise<void> => ipcRenderer.invoke('kb:app-invoke', { action: 'reveal-data-dir' }) as Promise<void>,
  },
};
for (const m of METHOD_NAMES) bridge[m] = (params: unknown, opts?: PreloadCallOptions) => call(m, params, opts);

contextBridge.exposeInMainWorld('kb', bridge as KbPreload);
