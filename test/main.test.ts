// Electron main's logic under plain Node, with Electron's API behind the small interfaces main uses:
// the worker as a utilityProcess (here a real forked worker process), IPC validation and sender
// checks, the kb-doc: protocol (traversal attempts included), window hardening and the menu.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ServerMessage } from '../src/shared/api.js';
import { Supervisor } from '../src/shared/supervisor.js';
import { docProtocolHandler, docUrl } from '../src/main/doc-protocol.js';
import { docx } from './support/format-fixtures.js';
import { IpcRouter, isAppPage, type UiContents } from '../src/main/ipc.js';
import { pathsFromArgv } from '../src/main/launch-args.js';
import { appInvoke } from '../src/main/app-invoke.js';
import { appMenuTemplate, type MenuItemTemplate } from '../src/main/menu.js';
import { WEB_PREFERENCES, denyPermissions, harden } from '../src/main/security.js';
import { utilityWorker, type ForkUtility, type UtilityProcessLike } from '../src/main/worker-process.js';
import { nodeFork } from './support/node-fork.js';
import { workerProcessEntry } from '../src/worker/index.js';
import { engineIn, tempDir, writeTree } from './helpers.js';

/** Electron's utilityProcess.fork, played by Node's child_process.fork of the same worker entry. */
const nodeForkOf: ForkUtility = (m, a, o) => nodeFork({ execArgv: workerProcessEntry()!.execArgv })(m, a, o);

/** A window's WebContents, recording what main sends it. */
function contents(id: number): UiContents & { got: ServerMessage[]; destroy: () => void } {
  let onDestroyed = (): void => undefined;
  let destroyed = false;
  const got: ServerMessage[] = [];
  return {
    id,
    got,
    send: (_channel, m) => void got.push(m),
    isDestroyed: () => destroyed,
    once: (_e, l) => (onDestroyed = l),
    destroy: () => {
      destroyed = true;
      onDestroyed();
    },
  };
}

const until = async (cond: () => boolean, ms = 20_000): Promise<void> => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

const APP = 'file:///opt/kb/out/renderer/index.html';

describe('main: the worker as a supervised utility process', () => {
  it('relays calls from an app window, fails them clearly when the worker crashes, restarts it and tells the windows', async () => {
    const data = await tempDir();
    const docs = await tempDir();
    await writeTree(docs, { 'a.md': '# Alpha\n\nthe walrus sings at dawn\n' });
    const entry = fileURLToPath(workerProcessEntry()!.url);
    let live: UtilityProcessLike | null = null;
    const spawn: ForkUtility = (m, a, o) => (live = nodeForkOf(m, a, o));
    const sup = new Supervisor(() => utilityWorker(spawn, entry, data), {
      onEvent: (...e) => router.broadcast(...e),
      backoff: { first: 50, max: 200 },
    });
    const router = new IpcRouter(sup, APP);
    await sup.start();
    const win = contents(1);
    router.allow(win);
    const from = { sender: win, frameUrl: `${APP}#ask`, isMainFrame: true };

    router.receive(from, { type: 'request', id: 7, method: 'ingest', params: { paths: [docs] } });
    await until(() => win.got.some((m) => m.type === 'response' && m.id === 7));
    expect(win.got.some((m) => m.type === 'event' && m.id === 7 && m.event === 'progress')).toBe(true);
    router.receive(from, { type: 'request', id: 8, method: 'search', params: { query: 'walrus' } });
    await until(() => win.got.some((m) => m.type === 'response' && m.id === 8));
    const found = win.got.find((m) => m.type === 'response' && m.id === 8) as { result: { results: { citation: { label: string } }[] } };
    expect(found.result.results[0]!.citation.label).toMatch(/a\.md · L1–3/);

    // A crash: the call in flight fails with a clear error, the window hears "restarting", then "ready".
    router.receive(from, { type: 'request', id: 9, method: 'doctor', params: {} });
    (live as UtilityProcessLike | null)?.kill();
    await until(() => win.got.some((m) => m.type === 'response' && m.id === 9));
    const failed = win.got.find((m) => m.type === 'response' && m.id === 9) as { error?: { message: string } };
    expect(failed.error?.message).toMatch(/engine stopped .* restarting/);
    await until(() => win.got.some((m) => m.type === 'event' && m.event === 'engine' && (m.data as { state: string }).state === 'ready'));
    expect(win.got.some((m) => m.type === 'event' && m.event === 'engine' && (m.data as { state: string }).state === 'restarting')).toBe(
      true,
    );
    router.receive(from, { type: 'request', id: 10, method: 'search', params: { query: 'walrus' } });
    await until(() => win.got.some((m) => m.type === 'response' && m.id === 10));
    expect((win.got.find((m) => m.type === 'response' && m.id === 10) as { result: { returned: number } }).result.returned).toBe(1);
    sup.stop();
  }, 60_000);
});

describe('main: IPC validation', () => {
  // A supervisor stand-in that records what reaches it: validation happens before it.
  const recording = () => {
    const calls: { method: string; params: unknown }[] = [];
    const cancelled: number[] = [];
    let n = 100;
    return {
      calls,
      cancelled,
      sup: {
        request: (method: string, params: unknown) => {
          calls.push({ method, params });
          return { id: n++, result: new Promise<never>(() => undefined) };
        },
        cancel: (id: number) => void cancelled.push(id),
      } as unknown as Pick<Supervisor, 'request' | 'cancel'>,
    };
  };

  it('answers only the app page in the main frame of a registered window', () => {
    const { calls, sup } = recording();
    const router = new IpcRouter(sup, APP);
    const ours = contents(1);
    const stranger = contents(2);
    router.allow(ours);
    const req = { type: 'request', id: 1, method: 'status', params: {} };
    router.receive({ sender: stranger, frameUrl: APP, isMainFrame: true }, req);
    router.receive({ sender: ours, frameUrl: 'https://evil.example/index.html', isMainFrame: true }, req);
    router.receive({ sender: ours, frameUrl: 'file:///tmp/evil/index.html', isMainFrame: true }, req);
    router.receive({ sender: ours, frameUrl: APP, isMainFrame: false }, req);
    router.receive({ sender: ours, frameUrl: null, isMainFrame: true }, req);
    expect(calls).toEqual([]);
    expect(router.rejected).toBe(5);
    expect(stranger.got).toEqual([]);
    router.receive({ sender: ours, frameUrl: APP, isMainFrame: true }, req);
    expect(calls).toEqual([{ method: 'status', params: {} }]);
  });

  it('rejects malformed messages, unknown methods and bad params with clear errors, never forwarding them', () => {
    const { calls, sup } = recording();
    const router = new IpcRouter(sup, APP);
    const win = contents(1);
    router.allow(win);
    const from = { sender: win, frameUrl: APP, isMainFrame: true };
    router.receive(from, 'hello');
    router.receive(from, { type: 'request', id: 2, method: 'rm -rf', params: {} });
    router.receive(from, { type: 'request', id: 3, method: 'search', params: { query: 42 } });
    router.receive(from, { type: 'request', id: 4, method: 'source', params: { doc_id: '../../etc/passwd' } });
    router.receive(from, { type: 'request', id: 5, method: 'ingest', params: { paths: [], extra: true } });
    router.receive(from, { type: 'request', id: 6, method: '__proto__', params: {} });
    expect(calls).toEqual([]);
    const errors = win.got.map((m) => (m.type === 'response' ? [m.id, m.error?.code, m.error?.message] : null));
    expect(errors[0]).toEqual([-1, 'INVALID_ARGUMENT', expect.stringMatching(/not a request/)]);
    expect(errors[1]).toEqual([2, 'NOT_FOUND', 'no method rm -rf']);
    expect(errors[2]).toEqual([3, 'INVALID_ARGUMENT', expect.stringMatching(/^search: query: .*string/)]);
    expect(errors[3]).toEqual([4, 'INVALID_ARGUMENT', expect.stringMatching(/doc_id: a document id/)]);
    expect(errors[4]![1]).toBe('INVALID_ARGUMENT');
    expect(errors[5]).toEqual([6, 'NOT_FOUND', 'no method __proto__']);
  });

  it('cancels what a window left running when it closes', () => {
    const { cancelled, sup } = recording();
    const router = new IpcRouter(sup, APP);
    const win = contents(1);
    router.allow(win);
    router.receive(
      { sender: win, frameUrl: APP, isMainFrame: true },
      { type: 'request', id: 1, method: 'ingest', params: { paths: ['/x'] } },
    );
    win.destroy();
    expect(cancelled).toEqual([100]);
  });

  it('tells the app page from look-alikes', () => {
    expect(isAppPage(`${APP}#ask`, APP)).toBe(true);
    expect(isAppPage(`${APP}?x=1`, APP)).toBe(true);
    expect(isAppPage('file:///opt/kb/out/renderer/other.html', APP)).toBe(false);
    expect(isAppPage('kb-doc://doc/0123456789abcdef0123', APP)).toBe(false);
    expect(isAppPage('not a url', APP)).toBe(false);
  });
});

describe('main: the kb-doc: protocol', () => {
  it('serves an indexed document by id, with ranges, and nothing else', async () => {
    const docs = await tempDir();
    await writeTree(docs, { 'notes.md': '# Notes\n\nkb-doc serves me\n', 'secret.txt': 'not indexed\n' });
    const engine = await engineIn();
    await engine.ingest([join(docs, 'notes.md')]);
    const doc = (await engine.list())[0]!;
    const looked: string[] = [];
    const handler = docProtocolHandler(async (id) => {
      looked.push(id);
      return engine.source(id);
    });
    const get = (url: string, headers: Record<string, string> = {}) => handler(new Request(url, { headers }));

    const ok = await get(docUrl(doc.doc_id));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(ok.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(await ok.text()).toBe('# Notes\n\nkb-doc serves me\n');
    const part = await get(docUrl(doc.doc_id), { range: 'bytes=2-6' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-6/26');
    expect(await part.text()).toBe('Notes');

    const attempts = [
      'kb-doc://doc/../../etc/passwd',
      'kb-doc://doc/..%2f..%2fetc%2fpasswd',
      'kb-doc://doc/%2e%2e/%2e%2e/etc/passwd',
      `kb-doc://doc/${doc.doc_id}/../../../etc/passwd`,
      `kb-doc://doc/${doc.doc_id}?file=/etc/passwd`,
      `kb-doc://doc/${encodeURIComponent(join(docs, 'secret.txt'))}`,
      `kb-doc://evil/${doc.doc_id}`,
      'kb-doc://doc/ffffffffffffffffffff',
      'kb-doc://doc/',
      'file:///etc/passwd',
    ];
    for (const url of attempts) expect([url, (await get(url)).status]).toEqual([url, 404]);
    // Only that one id ever reached the engine (the traversal attempts never became a lookup of a path).
    expect(new Set(looked)).toEqual(new Set([doc.doc_id, 'ffffffffffffffffffff']));
    engine.close();
  });

  it('serves a Word file rendered at a citation under a no-script CSP, and its bytes only as a download', async () => {
    const docs = await tempDir();
    await writeTree(docs, { 'r.docx': await docx([{ text: 'Intro words here.' }, { text: 'The cited paragraph.' }]) });
    const engine = await engineIn();
    await engine.ingest([join(docs, 'r.docx')]);
    const doc = (await engine.list())[0]!;
    const handler = docProtocolHandler(
      async (id) => engine.source(id),
      (id, at, q) => engine.view(id, at, q),
    );
    const view = await handler(new Request(`${docUrl(doc.doc_id)}/view?at=${encodeURIComponent('para=2')}`));
    expect(view.status).toBe(200);
    expect(view.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // No script but kb's own key forwarder, named by its hash (shared/view-keys.ts).
    expect(view.headers.get('content-security-policy')).toMatch(
      /^sandbox allow-scripts; default-src 'none'; script-src 'sha256-[\w+/=]+';/,
    );
    expect(await view.text()).toMatch(/<div id="kb-hit" class="hit"><div class="block" data-unit="2"><p>The cited paragraph\.<\/p>/);
    expect((await handler(new Request(`${docUrl(doc.doc_id)}/view?at=${encodeURIComponent('slide=1')}`))).status).toBe(400);
    expect((await handler(new Request(`kb-doc://doc/ffffffffffffffffffff/view`))).status).toBe(404);
    expect((await handler(new Request(`kb-doc://evil/${doc.doc_id}/view`))).status).toBe(404);
    expect((await handler(new Request(docUrl(doc.doc_id)))).headers.get('content-type')).toBe('application/octet-stream');
    engine.close();
  });
});

describe('main: window security, menu and launch arguments', () => {
  it('isolates and sandboxes renderers without Node', () => {
    expect(WEB_PREFERENCES).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
    });
  });

  it('blocks navigation away from the app page and every new window; web links go to the browser', () => {
    const handlers = new Map<string, (e: { preventDefault(): void; url: string }) => void>();
    let opener: ((d: { url: string }) => { action: 'deny' }) | null = null;
    harden(
      {
        on: (event: string, l: (e: { preventDefault(): void; url: string }) => void) => handlers.set(event, l),
        setWindowOpenHandler: (h) => (opener = h),
      },
      (url) => isAppPage(url, APP),
      (url) => external.push(url),
    );
    const external: string[] = [];
    const navigate = (event: string, url: string): boolean => {
      let prevented = false;
      handlers.get(event)!({ url, preventDefault: () => (prevented = true) });
      return prevented;
    };
    expect(navigate('will-navigate', 'https://evil.example/')).toBe(true);
    expect(navigate('will-navigate', 'file:///etc/passwd')).toBe(true);
    expect(navigate('will-redirect', 'http://127.0.0.1:9/')).toBe(true);
    expect(navigate('will-navigate', `${APP}#ask`)).toBe(false);
    expect(navigate('will-attach-webview', 'x')).toBe(true);
    expect(opener!({ url: 'https://example.org/docs' })).toEqual({ action: 'deny' });
    expect(opener!({ url: 'file:///etc/passwd' })).toEqual({ action: 'deny' });
    expect(external).toEqual(['https://example.org/docs']);
  });

  it('denies every permission request and check', () => {
    let request: ((c: unknown, p: string, cb: (g: boolean) => void) => void) | null = null;
    let check: (() => boolean) | null = null;
    denyPermissions({ setPermissionRequestHandler: (h) => (request = h), setPermissionCheckHandler: (h) => (check = h) });
    const answers: boolean[] = [];
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read']) request!(null, p, (g) => answers.push(g));
    expect(answers).toEqual([false, false, false, false]);
    expect(check!()).toBe(false);
  });

  it('offers Add Files…, Add Folder…, Preferences and Help, and each item does its job', () => {
    const done: string[] = [];
    const actions = {
      addFiles: () => done.push('files'),
      addFolder: () => done.push('folder'),
      preferences: () => done.push('prefs'),
      toggleAsk: () => done.push('ask'),
      help: () => done.push('help'),
    };
    for (const platform of ['linux', 'darwin']) {
      const flat = (items: MenuItemTemplate[]): MenuItemTemplate[] => items.flatMap((i) => [i, ...flat(i.submenu ?? [])]);
      const items = flat(appMenuTemplate(actions, platform));
      for (const label of ['Add Files…', 'Add Folder…', 'Preferences…', 'kb Help', 'Ask…']) items.find((i) => i.label === label)!.click!();
    }
    expect(done).toEqual(['files', 'folder', 'prefs', 'help', 'ask', 'files', 'folder', 'prefs', 'help', 'ask']);
  });

  it('takes files from a second launch, but not flags or the app itself', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'paper.pdf': 'x' });
    const exists = (p: string): boolean => p === join(dir, 'paper.pdf');
    expect(pathsFromArgv(['/usr/bin/kb', '--enable-logging', 'paper.pdf', 'missing.md'], dir, exists)).toEqual([join(dir, 'paper.pdf')]);
  });
});

describe('main: what windows may ask beyond the RPC', () => {
  it("opens and reveals indexed documents by id only (the user's own file), hands editor links on, and refuses the rest", async () => {
    const did: string[] = [];
    const act = {
      pick: async (kind: 'files' | 'folder') => [`/picked/${kind}`],
      source: async (id: string) => {
        if (id !== 'a'.repeat(20)) throw new Error(`no indexed document ${id}`);
        return {
          schema_version: 1 as const,
          doc_id: id,
          type: 'pdf' as const,
          title: 'r',
          file: '/data/blobs/ab/abcd',
          stale: false,
          name: 'r.pdf',
          path: '/home/me/r.pdf',
        };
      },
      openPath: async (p: string) => void did.push(`open ${p}`),
      reveal: (p: string) => void did.push(`reveal ${p}`),
      openExternal: async (u: string) => void did.push(`external ${u}`),
      dataDir: () => '/home/me/.local/share/kb',
    };
    expect(await appInvoke({ action: 'pick', kind: 'folder' }, act)).toEqual(['/picked/folder']);
    await appInvoke({ action: 'open-document', doc_id: 'a'.repeat(20), how: 'open' }, act);
    await appInvoke({ action: 'open-document', doc_id: 'a'.repeat(20), how: 'reveal' }, act);
    await appInvoke({ action: 'open-uri', uri: 'vscode://file/home/me/a.md:12' }, act);
    await appInvoke({ action: 'reveal-data-dir' }, act);
    expect(did).toEqual([
      'open /home/me/r.pdf',
      'reveal /home/me/r.pdf',
      'external vscode://file/home/me/a.md:12',
      'reveal /home/me/.local/share/kb',
    ]);
    // Never a path, never a file: or script URI, never an unknown action.
    await expect(appInvoke({ action: 'open-document', doc_id: '/etc/passwd', how: 'open' }, act)).rejects.toThrow(/not an app action/);
    for (const uri of ['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,x', 'no scheme']) {
      await expect(appInvoke({ action: 'open-uri', uri }, act)).rejects.toThrow(/not an app action/);
    }
    await expect(appInvoke({ action: 'format-disk' }, act)).rejects.toThrow(/not an app action/);
    expect(did).toHaveLength(4);
  });
});

describe('the desktop build (electron-vite)', () => {
  it('builds main, the worker and its threads, a self-contained sandboxed preload, and the renderer; the built worker serves the engine', async () => {
    const { spawnSync } = await import('node:child_process');
    const { chmodSync, readFileSync, existsSync, writeFileSync } = await import('node:fs');
    const { repoRoot } = await import('./helpers.js');
    // Built the way a person builds it, with `npm run app` (the script itself, not a copy of its steps),
    // and a stand-in Electron (Electron's own ELECTRON_OVERRIDE_DIST_PATH) that notes how it was started.
    const fake = await tempDir();
    writeFileSync(join(fake, 'electron'), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${join(fake, 'started')}'\n`);
    chmodSync(join(fake, 'electron'), 0o755);
    const app = spawnSync('npm', ['run', 'app', '--silent', '--', '--a-flag'], {
      cwd: repoRoot,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: fake, DISPLAY: ':99' },
      encoding: 'utf8',
    });
    expect(app.status, app.stderr).toBe(0);
    const asRoot = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
    expect(readFileSync(join(fake, 'started'), 'utf8').split('\n')).toEqual([repoRoot, '.', ...asRoot, '--a-flag', '']);
    const out = (p: string): string => join(repoRoot, 'out', p);
    for (const f of [
      'main/index.js',
      'main/worker.js',
      'main/parse-thread.js',
      'main/embed-thread.js',
      'main/ocr-thread.cjs',
      'preload/index.cjs',
      'renderer/index.html',
    ])
      expect(existsSync(out(f)), f).toBe(true);
    // A sandboxed preload can require nothing but electron.
    const requires = [...readFileSync(out('preload/index.cjs'), 'utf8').matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
    expect(new Set(requires)).toEqual(new Set(['electron']));
    // The page's CSP: only itself and kb-doc:, no inline script, no plugins, no other origins.
    const csp =
      /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(readFileSync(out('renderer/index.html'), 'utf8'))?.[1] ?? '';
    expect(csp).toMatch(/default-src 'self'/);
    // 'wasm-unsafe-eval': pdf.js compiles its scanned-image decoders; no JS eval is allowed.
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    expect(csp).toMatch(/object-src 'none'/);
    expect(csp).not.toMatch(/'unsafe-eval'|https?:|\*/);
    // pdf.js's decoders, standard fonts and CMaps ship beside the renderer.
    for (const f of [
      'pdfjs/wasm/jbig2.wasm',
      'pdfjs/wasm/openjpeg.wasm',
      'pdfjs/standard_fonts/LiberationSans-Regular.ttf',
      'pdfjs/cmaps/UniGB-UCS2-H.bcmap',
    ])
      expect(existsSync(out(`renderer/${f}`)), f).toBe(true);
    // Main loads no native module and no engine code.
    const mainJs = readFileSync(out('main/index.js'), 'utf8');
    expect(mainJs).not.toMatch(/better-sqlite3|@lancedb|onnxruntime/);

    // The worker as the app builds it answers over a parent channel, like a utilityProcess.
    const docs = await tempDir();
    await writeTree(docs, { 'a.md': '# A\n\nthe built worker finds this\n' });
    const data = await tempDir();
    const w = utilityWorker(nodeForkOf, out('main/worker.js'), data);
    const sup = new Supervisor(() => w);
    await sup.start();
    await sup.request('ingest', { paths: [docs] }).result;
    const r = await sup.request('search', { query: 'built worker' }).result;
    expect(r.results[0]!.citation.label).toBe('a.md · L1–3 § A');
    sup.stop();
  }, 120_000);
});
