// The web host behind `kb serve`: the UI and a WebSocket bridge to a supervised worker process, on
// 127.0.0.1 only. Every request needs the per-run token (from the printed URL, then a SameSite cookie);
// Host and Origin must name this loopback address, so a web page elsewhere (DNS rebinding included)
// can neither read the UI nor open the socket.
import { fork } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';
import { API, ClientMessageSchema, type Method, type ServerMessage } from '../../shared/api.js';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import { Supervisor, type WorkerHandle } from '../../shared/supervisor.js';
import { workerProcessEntry } from '../../worker/index.js';

export interface HostOptions {
  port: number;
  dataDir: string;
  /** The built renderer (index.html and assets), or null to serve the built-in fallback page. */
  rendererDir: string | null;
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
};

/** How a document's bytes are labelled: text is always plain text, so nothing in it is interpreted. */
const DOC_TYPES: Record<string, string> = {
  markdown: 'text/plain; charset=utf-8',
  note: 'text/plain; charset=utf-8',
  code: 'text/plain; charset=utf-8',
  pdf: 'application/pdf',
  image: 'application/octet-stream',
  audio: 'application/octet-stream',
};

const CSP = "default-src 'self'; connect-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; worker-src 'self' blob:";

function spawnWorker(dataDir: string): WorkerHandle {
  const entry = workerProcessEntry();
  if (!entry) throw new KbError('INTERNAL', 'the worker is not built: run npm run build');
  const child = fork(fileURLToPath(entry.url), ['--data-dir', dataDir], { execArgv: entry.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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
  const token = randomBytes(24).toString('base64url');
  const supervisor = new Supervisor(() => spawnWorker(opts.dataDir), { onEvent: (event, data) => broadcast({ type: 'event', event, data }) });
  const sockets = new Set<WebSocket>();
  const broadcast = (m: ServerMessage): void => {
    const text = JSON.stringify(m);
    for (const s of sockets) s.send(text);
  };
  await supervisor.start();

  let port = 0;
  const allowedHosts = (): string[] => [`127.0.0.1:${port}`, `localhost:${port}`];
  const hostOk = (req: IncomingMessage): boolean => allowedHosts().includes(req.headers.host ?? '');
  const authed = (req: IncomingMessage): boolean => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams.get('token') ?? undefined;
    return sameToken(q, token) || sameToken(cookieToken(req), token);
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

  /**
   * GET /doc/<document id>: an indexed document's bytes, looked up by id in the engine (the path is
   * never taken from the request). Served inline under a sandboxing CSP, so an HTML or SVG file
   * cannot run script in this origin.
   */
  const serveDoc = async (id: string, res: ServerResponse): Promise<void> => {
    if (!/^[0-9a-f]{20}$/.test(id)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const src = await supervisor.request('source', { doc_id: id }).result;
      const body = await readFile(src.file);
      res.writeHead(200, {
        'content-type': DOC_TYPES[src.type] ?? 'application/octet-stream',
        'content-security-policy': 'sandbox; default-src none',
        'cache-control': 'no-store',
        ...(src.stale ? { 'x-kb-stale': '1' } : {}),
      });
      res.end(body);
    } catch (e) {
      const code = toErrorPayload(e).code;
      res.writeHead(code === 'NOT_FOUND' || code === 'VANISHED' || code === 'INVALID_ARGUMENT' ? 404 : 500).end();
    }
  };

  const server = createServer((req, res) => {
    if (!hostOk(req)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('kb serve answers only on 127.0.0.1 and localhost\n');
      return;
    }
    if (!authed(req)) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('open the URL kb serve printed (it carries the access token)\n');
      return;
    }
    res.setHeader('set-cookie', `kb_token=${token}; HttpOnly; SameSite=Strict; Path=/`);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.startsWith('/doc/')) void serveDoc(path.slice('/doc/'.length), res);
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

  /** One browser connection: its requests go to the supervisor; its own ids come back with the answers. */
  const bridge = (ws: WebSocket): void => {
    sockets.add(ws);
    const mine = new Map<number, number>(); // the page's id → the supervisor's
    const send = (m: ServerMessage): void => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
    };
    ws.on('message', (data) => {
      let raw: unknown;
      try {
        raw = JSON.parse(String(data));
      } catch {
        send({ type: 'response', id: -1, error: { code: 'INVALID_ARGUMENT', message: 'not JSON' } });
        return;
      }
      const parsed = ClientMessageSchema.safeParse(raw);
      if (!parsed.success) {
        send({ type: 'response', id: -1, error: { code: 'INVALID_ARGUMENT', message: 'not a request' } });
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
      // Params are validated by the worker against the same contract; the host only relays them.
      const call = supervisor.request(m.method as Method, m.params as never, (progress) => send({ type: 'event', id: m.id, event: 'progress', data: progress }));
      mine.set(m.id, call.id);
      call.result.then(
        (result) => send({ type: 'response', id: m.id, result }),
        (e: unknown) => send({ type: 'response', id: m.id, error: toErrorPayload(e) }),
      ).finally(() => mine.delete(m.id));
    });
    ws.on('close', () => {
      sockets.delete(ws);
      for (const inner of mine.values()) supervisor.cancel(inner);
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
