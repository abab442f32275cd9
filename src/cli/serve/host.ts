// The web host behind `kb serve`: the UI and a WebSocket bridge to a supervised worker process, on
// 127.0.0.1 unless told otherwise. Every request signs in (sign-in.ts): the data dir's token (from
// the printed URL, then a SameSite cookie) is the machine's owner; on a shared store a team's users
// bring their own, and every call is the engine's for that user. Host and Origin must name this
// address or the configured public URL, so a web page elsewhere (DNS rebinding included) can neither
// read the UI nor open the socket. It speaks plain HTTP: on an address other machines reach it
// belongs behind a TLS proxy (README: "A team server"), and refuses to start there without --insecure.
import { fork } from 'node:child_process';
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
import { KbError } from '../../shared/errors.js';
import { SearchRouter } from './search-router.js';
import { UserTurns } from './user-turns.js';
import { uploadEndpoint } from './upload-endpoint.js';
import { serveToken } from './token.js';
import { cookieTokenOf, Gate, pendingCookie, type Session, sessionCookie, tokenOf } from './sign-in.js';
import { SIGN_IN_PATH, SIGNED_OUT_TEXT, TOO_MANY, UNKNOWN_TOKEN, sendPage, signInPage } from './sign-in-page.js';
import { closeSignedOut, forTeamUser } from './team-events.js';
import { signInForm } from './sign-in-form.js';
import type { Caller, Method, Params, Result } from '../../shared/api.js';
import { Supervisor, type WorkerHandle } from '../../shared/supervisor.js';
import { errorFields, type Log, silentLog, workerProcessEntry } from '../../worker/index.js';

/** A structured document's rendition: /doc/<id>/view, served to its frame by a key of its own. */
const VIEW_ROUTE = new RegExp(`^/doc/(${DOC_ID_CHARS})/view$`);

export interface HostOptions {
  port: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** The origin people reach it by through a proxy (serve.public_url): its Host and Origin are accepted. */
  publicUrl?: string | null;
  /** serve.trusted_proxies: whose X-Forwarded-For names the client. */
  trustedProxies?: readonly string[];
  /** serve.upload_quota: megabytes a team's user may drop in a day (0: no limit). */
  uploadQuotaMb?: number;
  /** serve.search_processes: processes beside the main one that answer searches (search-router.ts). */
  searchProcesses?: number;
  /** Listen on an address other machines reach without TLS in front (a trusted network only). */
  insecure?: boolean;
  dataDir: string;
  /** A postgresql:// URL given on the command line (kb serve --store): the worker's store. */
  store?: string;
  /** The built renderer (index.html and assets), or null to serve the built-in fallback page. */
  rendererDir: string | null;
  /** Where the host logs its worker's restarts and failures (kb serve: logs/serve.log). */
  log?: Log;
}

export interface Host {
  /** The address people open (no token in it). */
  url: string;
  /** The owner's token (serve-token): for a person at a terminal's link only. */
  token: string;
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

/** The engine's process; `searcher`: one that only searches (search-router.ts). */
function spawnWorker(dataDir: string, store: string | undefined, searcher = false): WorkerHandle {
  const entry = workerProcessEntry();
  if (!entry) throw new KbError('INTERNAL', 'the worker is not built: run npm run build');
  const child = fork(fileURLToPath(entry.url), ['--data-dir', dataDir, ...(searcher ? ['--searcher'] : [])], {
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

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
export function isLoopback(host: string): boolean {
  return /^(127(\.\d{1,3}){3}|::1|\[::1\]|localhost)$/i.test(host);
}

/** Why kb serve will not listen where it was asked, or null. */
function listenRefusal(host: string, publicUrl: string | null, insecure: boolean): string | null {
  if (isLoopback(host)) return null;
  if (!insecure)
    return `kb serve speaks plain HTTP, and ${host} is reachable from other machines: tokens would cross the network readable. Keep --host 127.0.0.1 behind a TLS proxy (Caddy or nginx: README, "A team server") with serve.public_url set to its https:// address, or say --insecure on a network you trust`;
  if (!publicUrl)
    return `on ${host}, kb serve needs the address people will type, to check each request's Host and Origin: --public-url http://NAME:PORT (or serve.public_url)`;
  return null;
}

const FALLBACK = `<!doctype html><meta charset="utf-8"><title>kb</title>
<h1>kb</h1><p>The web UI is not built in this copy of kb. The engine is running: its WebSocket API is at <code>/ws</code>.</p>`;

export async function startHost(opts: HostOptions): Promise<Host> {
  const listenOn = opts.host ?? '127.0.0.1';
  const publicUrl = opts.publicUrl ? new URL(opts.publicUrl) : null;
  const refusal = listenRefusal(listenOn, opts.publicUrl ?? null, opts.insecure === true);
  if (refusal) throw new KbError('INVALID_ARGUMENT', refusal);
  // The same token for this data dir across restarts: an open page reconnects without a new link.
  const token = serveToken(opts.dataDir);
  const log = opts.log ?? silentLog;
  const supervisor = new Supervisor(() => spawnWorker(opts.dataDir, opts.store), {
    onEvent: (event, data) => {
      if (event === 'engine') log[data.state === 'ready' ? 'info' : 'warn']({ ...data }, 'engine state');
      broadcast({ type: 'event', event, data });
    },
  });
  /** Each open page, and whom it signed in as (none: the owner). */
  const sockets = new Map<WebSocket, Caller | undefined>();
  const broadcast = (m: ServerMessage): void => {
    const text = JSON.stringify(m);
    for (const [s, caller] of sockets) {
      if (!caller) s.send(text);
      else {
        const theirs = forTeamUser(m);
        if (theirs) s.send(JSON.stringify(theirs));
      }
    }
  };
  await supervisor.start().catch((e: unknown) => {
    log.error(errorFields(e), 'the worker did not start');
    throw e;
  });
  const { data_dir: dataDir } = await supervisor.request('status', {}).result;
  // Started once the main process has the index open (and migrated): each takes searches once ready.
  const searchers = Array.from(
    { length: opts.searchProcesses ?? 0 },
    () => new Supervisor(() => spawnWorker(opts.dataDir, opts.store, true)),
  );
  for (const s of searchers)
    s.start().catch((e: unknown) => log.warn(errorFields(e), 'a search process did not start: the main process answers searches'));
  const router = new SearchRouter(supervisor, searchers);
  const turns = new UserTurns(router);

  let port = 0;
  /** The origins a page of ours is served from: this loopback port, and the public URL. */
  const origins = (): string[] => [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}`,
    ...(isLoopback(listenOn) || listenOn === '0.0.0.0' || listenOn === '::' ? [] : [`http://${listenOn}:${port}`]),
    ...(publicUrl ? [publicUrl.origin] : []),
  ];
  const hostOk = (req: IncomingMessage): boolean => origins().some((o) => new URL(o).host === req.headers.host);
  const originOk = (req: IncomingMessage): boolean => origins().includes(req.headers.origin ?? '');
  const secure = publicUrl?.protocol === 'https:';
  const gate = new Gate(
    token,
    async (t) => (await supervisor.request('whoami', {}, undefined, { token: t }).result).user,
    // Behind a proxy every request comes from it: a proxy the admin named says whose it is (the last
    // address it appended); from anyone else the header is believed by no one.
    (req) => {
      const peer = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
      const trusted = opts.trustedProxies?.includes(peer) === true;
      const forwarded = trusted ? String(req.headers['x-forwarded-for'] ?? '') : '';
      return forwarded.split(',').pop()?.trim() || peer;
    },
  );
  /** Asks the engine for whom the session is (none: the owner). */
  const ask = <M extends Method>(session: Session, method: M, params: Params<M>): Promise<Result<M>> =>
    supervisor.request(method, params, undefined, session.caller).result;

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
  const serveDoc = async (session: Session, id: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = await serveDocument(
      id,
      // The server's own read of where the bytes are, for the user (their rights): never sent to
      // them, so asked as `{user}` — a `{token}` call is answered in their view of paths (team-paths.ts).
      (doc_id) => ask(session.user && session.caller ? { ...session, caller: { user: session.user } } : session, 'source', { doc_id }),
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
  const serveView = async (session: Session, id: string, at: string | null, q: string | null, res: ServerResponse): Promise<void> => {
    const reply = await serveDocumentView(
      id,
      at,
      (doc_id, frag, words) => ask(session, 'document.view', { doc_id, ...(frag ? { at: frag } : {}), ...(words ? { q: words } : {}) }),
      q,
    );
    // The viewer's frame is sandboxed (an opaque origin), so the SameSite cookie does not go with the
    // links inside it (a book's chapters, a workbook's sheets): those carry a key good for that one
    // document's rendition, for this session, for an hour (sign-in.ts).
    const key = `k=${gate.viewKey(id, session)}`;
    const html = reply.status === 200 && reply.html ? reply.html.replaceAll('href="view?at=', `href="view?${key}&amp;at=`) : reply.html;
    res.writeHead(reply.status, reply.headers).end(html ?? '');
  };

  const upload = uploadEndpoint({ dataDir, originOk, ask, quotaMb: opts.uploadQuotaMb ?? 0 });

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!hostOk(req)) {
      res
        .writeHead(403, { 'content-type': 'text/plain' })
        .end('kb serve answers only at its own address (serve.public_url, or loopback)\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === SIGN_IN_PATH) return signInForm(req, res, { gate, originOk, secure });
    const view = VIEW_ROUTE.exec(path)?.[1] ?? null;
    const pageFile = !view && path !== '/upload' && !path.startsWith('/doc/');
    const signed = await gate.signIn(req, url, view, pageFile);
    if ('refused' in signed) {
      const limited = signed.refused === 'limited';
      // A person opening the page gets a form for their token; a program, the same refusal in words.
      if (pageFile && req.method === 'GET' && /text\/html/.test(req.headers.accept ?? ''))
        return sendPage(
          res,
          limited ? 429 : 401,
          signInPage(limited ? TOO_MANY : url.searchParams.has('signed_out') ? SIGNED_OUT_TEXT : tokenOf(req, url) ? UNKNOWN_TOKEN : null),
        );
      res
        .writeHead(limited ? 429 : 401, { 'content-type': 'text/plain', ...(limited ? { 'retry-after': '600' } : {}) })
        .end(
          limited
            ? 'too many failed sign-ins from this address: wait ten minutes\n'
            : 'open the URL kb serve printed, or sign in with your token (Authorization: Bearer, or ?token=)\n',
        );
      return;
    }
    const session = signed.session;
    // A token in the address signs in at once only when the person opened that address themselves
    // (typed, pasted, a bookmark: Sec-Fetch-Site none). From another site's link, or over another
    // session here, it asks first: the link could be anyone's.
    const linked = url.searchParams.get('token');
    if (pageFile && req.method === 'GET' && linked && session.token === linked) {
      const site = req.headers['sec-fetch-site'];
      const current = cookieTokenOf(req);
      // Asked at /sign-in, the token kept for it in a cookie of its own: the address loses it at once.
      if (site === 'cross-site' || site === 'same-site' || (current !== undefined && current !== linked)) {
        res
          .writeHead(303, {
            location: SIGN_IN_PATH,
            'set-cookie': pendingCookie(linked, secure),
            'cache-control': 'no-store',
            'referrer-policy': 'no-referrer',
          })
          .end();
        return;
      }
    }
    // A view key opens one rendition and nothing else: it is never turned into the session cookie.
    if (session.token) res.setHeader('set-cookie', sessionCookie(session.token, secure));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    if (view) return serveView(session, view, url.searchParams.get('at'), url.searchParams.get('q'), res);
    if (!session.token) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('a view key opens its document’s rendition only\n');
      return;
    }
    if (path === '/upload') return upload(session, req, url, res);
    if (path.startsWith('/doc/')) return serveDoc(session, path.slice('/doc/'.length), req, res);
    return serveFile(req, res);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log.warn(errorFields(e), 'a request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end();
    });
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const refuse = (status: string): void => void socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`);
    if (!hostOk(req) || !originOk(req) || url.pathname !== '/ws') return refuse('403 Forbidden');
    gate.signIn(req, url, null).then(
      (signed) => {
        if ('refused' in signed) return refuse(signed.refused === 'limited' ? '429 Too Many Requests' : '401 Unauthorized');
        if (!signed.session.token) return refuse('401 Unauthorized');
        const caller = signed.session.caller;
        wss.handleUpgrade(req, socket, head, (ws) => bridge(ws, caller));
      },
      () => refuse('503 Service Unavailable'),
    );
  });

  /** One browser connection: a bridge session that checks each message against the contract. */
  const bridge = (ws: WebSocket, caller: Caller | undefined): void => {
    sockets.set(ws, caller);
    const session = openBridgeSession(
      turns.for(UserTurns.personOf(caller)),
      (m) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
      },
      caller,
    );
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
    server.listen(opts.port, listenOn, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const stopSignedOut = closeSignedOut(sockets, (caller) => supervisor.request('whoami', {}, undefined, caller).result);
  const shown = publicUrl ? publicUrl.origin : `http://${isLoopback(listenOn) ? '127.0.0.1' : listenOn}:${port}`;
  return {
    url: `${shown}/`,
    token,
    port,
    close: async () => {
      stopSignedOut();
      supervisor.stop();
      for (const s of searchers) s.stop();
      for (const s of sockets.keys()) s.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
