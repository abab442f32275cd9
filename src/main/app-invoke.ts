// What the app's windows may ask of main beyond the RPC: a file or folder dialog, an indexed document
// opened in its default app or shown in its folder, an editor link. Checked here (the renderer is not
// trusted): documents by id only, so a window can open nothing kb has not indexed.
import { AppInvokeSchema } from '../shared/api.js';
import type { DocumentSource } from '../shared/wire.js';

export interface AppActions {
  pick(kind: 'files' | 'folder'): Promise<string[]>;
  source(docId: string): Promise<DocumentSource>;
  openPath(path: string): Promise<void>;
  reveal(path: string): void;
  openExternal(uri: string): Promise<void>;
  /** The data dir the worker opened, once it has said. */
  dataDir(): string | null;
}

export async function appInvoke(raw: unknown, act: AppActions): Promise<unknown> {
  const m = AppInvokeSchema.safeParse(raw);
  if (!m.success) throw new Error(`not an app action: ${m.error.issues[0]?.message ?? 'invalid'}`);
  const a = m.data;
  switch (a.action) {
    case 'pick':
      return act.pick(a.kind);
    case 'open-document': {
      // The user's own file where they keep it: kb's kept copy has no name an app could open it by.
      const src = await act.source(a.doc_id);
      const path = src.path ?? src.file;
      if (a.how === 'reveal') act.reveal(path);
      else await act.openPath(path);
      return undefined;
    }
    case 'open-uri':
      return act.openExternal(a.uri);
    case 'reveal-data-dir': {
      const dir = act.dataDir();
      if (!dir) throw new Error('kb has not opened its data folder yet');
      act.reveal(dir);
      return undefined;
    }
  }
}
