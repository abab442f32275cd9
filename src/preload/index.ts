// The preload script: the only bridge between a sandboxed, isolated renderer and the app. It exposes
// `window.kb` — one function per contract method plus event subscriptions — and nothing else: no
// ipcRenderer, no Node. Everything it sends is validated again in main (src/main/ipc.ts).
import { contextBridge, ipcRenderer, webUtils } from 'electron';
import type { AppInvoke, AppMessage, ClientMessage, KbPreload, PreloadCallOptions, ServerMessage } from '../shared/api.js';
import { CHANNELS } from '../shared/channels.js';
import type { EventData, EventName } from '../shared/events.js';
import { METHOD_NAMES } from '../shared/methods.js';
import { RpcCalls } from '../shared/rpc-client.js';

const calls = new RpcCalls();
ipcRenderer.on(CHANNELS.message, (_e, m: ServerMessage) => calls.receive(m));
const tell = (m: AppMessage): void => ipcRenderer.send(CHANNELS.app, m);
const ask = (m: AppInvoke): Promise<unknown> => ipcRenderer.invoke(CHANNELS.appInvoke, m);

function call(method: string, params: unknown, opts: PreloadCallOptions = {}): Promise<unknown> {
  const { id, result } = calls.open(opts.onProgress);
  ipcRenderer.send(CHANNELS.request, { type: 'request', id, method, params } satisfies ClientMessage);
  opts.onCancelable?.(() => ipcRenderer.send(CHANNELS.request, { type: 'cancel', id } satisfies ClientMessage));
  return result;
}

const bridge: Record<string, unknown> = {
  on<E extends EventName>(event: E, handler: (d: EventData<E>) => void): () => void {
    const off = calls.on(event, handler);
    if (event === 'app:ingest') tell({ action: 'ui-ready' });
    return off;
  },
  app: {
    pathForFile: (file: File): string => webUtils.getPathForFile(file),
    // Checked in main (AppMessageSchema): a hit that is not one goes nowhere.
    showHit: (hit: unknown): void => tell({ action: 'show-hit', hit } as AppMessage),
    closePanel: (): void => tell({ action: 'close-panel' }),
    pick: (kind: 'files' | 'folder'): Promise<string[]> => ask({ action: 'pick', kind }) as Promise<string[]>,
    openDocument: (doc_id: string, how: 'open' | 'reveal'): Promise<void> => ask({ action: 'open-document', doc_id, how }) as Promise<void>,
    openUri: (uri: string): Promise<void> => ask({ action: 'open-uri', uri }) as Promise<void>,
    revealDataDir: (): Promise<void> => ask({ action: 'reveal-data-dir' }) as Promise<void>,
  },
};
for (const m of METHOD_NAMES) bridge[m] = (params: unknown, opts?: PreloadCallOptions) => call(m, params, opts);

contextBridge.exposeInMainWorld('kb', bridge as KbPreload);
