// window.kb from the desktop app's preload script, adapted to the KbBridge the UI uses: an
// AbortSignal cannot cross Electron's context bridge, so cancellation travels as a function instead.
import type { CallOptions, KbBridge, KbPreload, Method } from '../../shared/api';

export function fromPreload(p: KbPreload): KbBridge {
  const call =
    (method: Method) =>
    (params: unknown, opts: CallOptions = {}) => {
      const { signal, onProgress } = opts;
      return (p[method] as (params: unknown, o: object) => Promise<unknown>)(params, {
        ...(onProgress ? { onProgress } : {}),
        onCancelable: (cancel: () => void) => {
          if (signal?.aborted) cancel();
          else signal?.addEventListener('abort', cancel, { once: true });
        },
      });
    };
  return new Proxy({} as KbBridge, {
    get: (_t, prop: string) => {
      if (prop === 'on') return p.on;
      if (prop === 'app') return p.app;
      if (prop === 'docUrl') return (id: string) => `kb-doc://doc/${encodeURIComponent(id)}`;
      return call(prop as Method);
    },
  });
}
