// The web host behind `kb serve`: the UI and a WebSocket bridge to a supervised worker process, on
// 127.0.0.1 only. Every request needs the data dir's token (from the printed URL, then a SameSite cookie);
// Host and Origin must name this loopback address, so a web page elsewhere (DNS rebinding included)
// can neither read the UI nor open the socket.
import { fork } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ServerMessage } from '../../shared/api.js';
import { openBridgeSession } from '../../shared/bridge.js';
import { DOC_ID_CHARS } from '../../shared/doc-id.js';
import { serveDocument, serveDocumentView } from '../../shared/doc-serving.js';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import { receiveUpload } from './uploads.js';
import { serveToken } from './token.js';
import { Supervisor, type WorkerHandle } from '../../shared/supervisor.js';
import { errorFields, type Log, silentLog, workerProcessEntry } from '../../worker/index.js';

/** A structured document's rendition: /doc/<id>/view, served to its frame by a key of its own. */
const VIEW_ROUTE = new RegExp(`^/doc/(${DOC_ID_CHARS})/view$`);

export interface HostOptions {
  port: number;
  dataDir: string;
  /** A postgresql:// URL given on the command line (kb serve --store): the worker's store. */
  store?: string;
  /** The built renderer (index.html and assets), or null to serve the built-in fallback page. */
  rendererDir: string | null;
  /** Where the host logs its worker's restarts and failures (kb serve: logs/serve.log). */
  log?: Log;
}

export interface Host {
  url: string;
  port: number;
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
};

// 'wasm-unsafe-eval' lets pdf.js compile its image decoders (WebAssembly); it allows no JS eval.
const CSP =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:";

function spawnWorker(dataDir: string, store: string | undefined): WorkerHandle {
  const entry = workerProcessEntry();
  if (!entry) throw new KbError('INTERNAL', 'the worker is not built: run npm run build');
  const child = fork(fileURLToPath(entry.url), ['--data-dir', dataDir], {
    execArgv: entry.execArgv,
    // kb serve --store: the worker resolves its settings itself, the store among them.
    ...(store ? { env: { ...process.env, KB_STORE: store } } : {}),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    send: (m) => child.send(m),
    onMessage: (h) => child.on('message', h),
    onExit: (h) => child.on('exit', (code) => h(code)),
    kill: () => child.kill(),
  };
}

function sameToken(a: string | undefined, token: string): boolean {
  if (!a || a.length !== token.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(token));
}

function cookieToken(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)kb_token=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
}

const FALLBACK = `<!doctype html><meta charset="utf-8"><title>kb</title>
<h1>kb</h1><p>The web UI is not built in this copy of kb. The engine is running: its WebSocket API is at <code>/ws</code>.</p>`;

export async function startHost(opts: HostOptions): Promise<Host> {
  // The same token for this data dir across restarts: an open page reconnects without a new link.
  const token = serveToken(opts.dataDir);
  const log = opts.log ?? silentLog;
  const supervisor = new Supervisor(() => spawnWorker(opts.dataDir, opts.store), {
    onEvent: (event, data) => {
      if (event === 'engine') log[data.state === 'ready' ? 'info' : 'warn']({ ...data }, 'engine state');
      broadcast({ type: 'event', event, data });
    },
  });
  const sockets = new Set<WebSocket>();
  const broadcast = (m: ServerMessage): void => {
    const text = JSON.stringify(m);
    for (const s of sockets) s.send(text);
  };
  await supervisor.start().catch((e: unknown) => {
    log.error(errorFields(e), 'the worker did not start');
    throw e;
  });
  const { data_dir: dataDir } = await supervisor.request('status', {}).result;

  let port = 0;
  const allowedHosts = (): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];
  const hostOk = (req: IncomingMessage): boolean => allowedHosts().includes(req.headers.host ?? '');
  // The viewer's frame is sandboxed (an opaque origin), so the SameSite cookie does not go with the
  // links inside it (a book's chapters, a workbook's sheets): those carry a key good for that one
  // document's rendition only.
  const viewKey = (docId: string): string => createHmac('sha256', token).update(`view\u0000${docId}`).digest('hex').slice(0, 32);
  const authed = (req: IncomingMessage): 'token' | 'view' | null => {
    const url = new URL(req.url ?? '/', 'http://x');
    const q = url.searchParams.get('token') ?? undefined;
    if (sameToken(q, token) || sameToken(cookieToken(req), token)) return 'token';
    const view = VIEW_ROUTE.exec(url.pathname);
    return view && sameToken(url.searchParams.get('k') ?? undefined, viewKey(view[1]!)) ? 'view' : null;
  };

  const serveFile = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400).end(); // a malformed %-escape: answer it, never let it reject unheard
      return;
    }
    if (!opts.rendererDir) {
      res.writeHead(200, { 'content-type': TYPES['.html']!, 'content-security-policy': CSP }).end(FALLBACK);
      return;
    }
    const root = normalize(opts.rendererDir + sep);
    const file = normalize(join(root, path === '/' ? 'index.html' : path));
    if (!file.startsWith(root)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-security-policy': CSP }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  };

  /** GET /doc/<document id>: an indexed document's bytes, by id only (see shared/doc-serving.ts). */
  const serveDoc = async (id: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = await serveDocument(
      id,
      (doc_id) => supervisor.request('source', { doc_id }).result,
      async (file) => (await stat(file)).size,
      req.headers.range,
    );
    res.writeHead(reply.status, reply.headers);
    if (!reply.body || req.method === 'HEAD') return void res.end();
    // Streamed: memory stays at a buffer whatever the file's size; a vanished file ends the response.
    createReadStream(reply.body.file, { start: reply.body.start, end: reply.body.end })
      .on('error', () => res.destroy())
      .pipe(res);
  };

  /** GET /doc/<document id>/view?at=<fragment>: a structured document rendered at a citation. */
  const serveView = async (id: string, at: string | null, q: string | null, res: ServerResponse): Promise<void> => {
    const reply = await serveDocumentView(
      id,
      at,
      (doc_id, frag, words) =>
        supervisor.request('document.view', { doc_id, ...(frag ? { at: frag } : {}), ...(words ? { q: words } : {}) }).result,
      q,
    );
    const html =
      reply.status === 200 && reply.html ? reply.html.replaceAll('href="view?at=', `href="view?k=${viewKey(id)}&amp;at=`) : reply.html;
    res.writeHead(reply.status, reply.headers).end(html ?? '');
  };

  /**
   * POST /upload?name=<relative path>: a file dropped in the browser (see uploads.ts). Only from this
   * origin: the Origin header must name it, so no other page can post files even with the cookie.
   */
  const upload = async (req: IncomingMessage, name: string, res: ServerResponse): Promise<void> => {
    const origin = req.headers.origin ?? '';
    if (req.method !== 'POST' || !allowedHosts().some((h) => origin === `http://${h}`)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end("uploads are accepted only from kb's own page\n");
      return;
    }
    try {
      const file = await receiveUpload(req, join(dataDir, 'uploads'), name);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: file }));
    } catch (e) {
      const p = toErrorPayload(e);
      res.writeHead(p.code === 'INVALID_ARGUMENT' ? 400 : 500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: p }));
    }
  };

  const server = createServer((req, res) => {
    if (!hostOk(req)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('kb serve answers only on 127.0.0.1 and localhost\n');
      return;
    }
    const auth = authed(req);
    if (!auth) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('open the URL kb serve printed (it carries the access token)\n');
      return;
    }
    // A view key opens one rendition and nothing else: it is never turned into the session cookie.
    if (auth === 'token') res.setHeader('set-cookie', `kb_token=${token}; HttpOnly; SameSite=Strict; Path=/`);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/upload') void upload(req, url.searchParams.get('name') ?? '', res);
    else if (/^\/doc\/[^/]+\/view$/.test(path))
      void serveView(path.split('/')[2]!, url.searchParams.get('at'), url.searchParams.get('q'), res);
    else if (path.startsWith('/doc/')) void serveDoc(path.slice('/doc/'.length), req, res);
    else void serveFile(req, res);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const origin = req.headers.origin ?? '';
    const originOk = allowedHosts().some((h) => origin === `http://${h}`);
    if (!hostOk(req) || !originOk || !authed(req) || new URL(req.url ?? '/', 'http://x').pathname !== '/ws') {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => bridge(ws));
  });

  /** One browser connection: a bridge session that checks each message against the contract. */
  const bridge = (ws: WebSocket): void => {
    sockets.add(ws);
    const session = openBridgeSession(supervisor, (m) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    });
    ws.on('message', (data) => {
      let raw: unknown;
      try {
        raw = JSON.parse(String(data));
      } catch {
        ws.send(
          JSON.stringify({ type: 'response', id: -1, error: { code: 'INVALID_ARGUMENT', message: 'not JSON' } } satisfies ServerMessage),
        );
        return;
      }
      session.receive(raw);
    });
    // A protocol error (an oversized or malformed frame) closes this connection; it must never reach
    // the process as an unhandled 'error' event, which would end the host for every other page.
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      sockets.delete(ws);
      session.close();
    });
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    close: async () => {
      supervisor.stop();
      for (const s of sockets) s.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
