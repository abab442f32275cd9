// A client of a team's kb server: the same contract the app's pages speak, over the server's
// WebSocket, signed in with the person's own token, so every answer is what that person may read.
// kb's commands use it for `kb --server URL --token T …` (kb mcp too), and the app's engine for the
// server it was connected to (service.ts). Each call's params are checked before they
// leave, and each answer against its method's schema when it comes back: the server is another process.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import WebSocket from 'ws';
import { API, type CallOptions, type KbClient, type Method, METHODS, type Params, ServerMessageSchema } from '../../shared/api.js';
import { type ErrorCode, KbError } from '../../shared/errors.js';
import type { EventData, EventName } from '../../shared/events.js';
import { describeIssues } from '../../shared/issues.js';
import { RpcCalls } from '../../shared/rpc-client.js';
import { filesUnder } from '../ingest/files-under.js';

/** The contract's calls, answered by the server; events it tells every window; closing the connection. */
export type RemoteClient = KbClient & {
  on<E extends EventName>(event: E, handler: (data: EventData<E>) => void): () => void;
  /** Work a call leaves running goes on in the server, which outlives this client: nothing to wait for. */
  settled(): Promise<void>;
  close(): void;
  /** The server's origin (https://kb.example.com). */
  readonly origin: string;
  /** Whether the connection is still open. */
  readonly open: boolean;
};

/** What a refused connection means, in words a person can act on. */
function refusal(status: number | undefined, server: string): KbError {
  if (status === 401)
    return new KbError('UNAUTHENTICATED', `${server} did not accept the token: ask its admin for a new one (kb users token NAME)`);
  if (status === 429)
    return new KbError('UNAUTHENTICATED', `${server} refuses this address for a while after failed sign-ins: wait ten minutes`);
  if (status === 403)
    return new KbError(
      'STORE_UNAVAILABLE',
      `${server} refused the connection (403): is that the address its admin set as serve.public_url?`,
    );
  return new KbError('STORE_UNAVAILABLE', `${server} answered ${status ?? 'nothing'} where a kb server would open its WebSocket`);
}

export async function connectServer(server: string, token: string | undefined): Promise<RemoteClient> {
  let base: URL;
  try {
    base = new URL(server);
  } catch {
    throw new KbError('INVALID_ARGUMENT', `--server ${server}: not a URL (https://kb.example.com)`);
  }
  if (base.protocol !== 'https:' && base.protocol !== 'http:')
    throw new KbError('INVALID_ARGUMENT', `--server ${server}: an http:// or https:// address`);
  if (!token)
    throw new KbError(
      'INVALID_ARGUMENT',
      `${base.origin} needs your token: --token T, or KB_TOKEN (its admin gives it: kb users add NAME)`,
    );
  const ws = new WebSocket(`${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}/ws`, {
    headers: { authorization: `Bearer ${token}` },
    origin: base.origin,
    maxPayload: 64 * 1024 * 1024,
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res) => reject(refusal(res.statusCode, base.origin)));
    ws.once('error', (e) => reject(new KbError('STORE_UNAVAILABLE', `cannot reach the kb server at ${base.origin}: ${e.message}`)));
  });
  const calls = new RpcCalls((code, message) => new KbError(code as ErrorCode, message));
  ws.on('message', (data) => {
    let raw: unknown;
    try {
      raw = JSON.parse(String(data));
    } catch {
      return; // not the contract: nothing waits for it
    }
    const m = ServerMessageSchema.safeParse(raw);
    if (m.success) calls.receive(m.data);
  });
  ws.on('error', () => undefined); // 'close' follows and says it
  ws.on('close', () => calls.failAll(new KbError('STORE_UNAVAILABLE', `lost the connection to the kb server at ${base.origin}`)));

  /**
   * A file of this machine added to one of the server's collections: its bytes sent to the server's
   * /upload (the server checks the person may add there), answered with where the server keeps it —
   * the path the server's ingest then reads.
   */
  const upload = async (file: string, name: string, collection: string): Promise<string> => {
    const size = (await stat(file)).size;
    const res = await fetch(`${base.origin}/upload?collection=${encodeURIComponent(collection)}&name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, origin: base.origin, 'content-length': String(size) },
      body: Readable.toWeb(createReadStream(file)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    const answer = (await res.json().catch(() => ({}))) as { path?: string; error?: { code?: string; message?: string } };
    if (res.ok && answer.path) return answer.path;
    const code = answer.error?.code === 'FORBIDDEN' || answer.error?.code === 'NOT_FOUND' ? answer.error.code : 'INVALID_ARGUMENT';
    throw new KbError(code, answer.error?.message ?? `${base.origin} refused ${name} (${res.status})`);
  };

  const call =
    (method: Method) =>
    async (params: unknown, opts: CallOptions = {}): Promise<unknown> => {
      let checked = API[method].params.safeParse(params ?? {});
      if (!checked.success) throw new KbError('INVALID_ARGUMENT', `${method}: ${describeIssues(checked.error)}`);
      // Files of this machine into a server collection: the server cannot read them here, so their
      // bytes go first and the server indexes its own copies.
      if (method === 'ingest') {
        const { collection, ...rest } = checked.data as Params<'ingest'>;
        if (collection) {
          const there: string[] = [];
          for (const f of await filesUnder(rest.paths)) there.push(await upload(f.path, f.name, collection));
          checked = API[method].params.safeParse({ ...rest, paths: there });
          if (!checked.success) throw new KbError('INVALID_ARGUMENT', `${method}: ${describeIssues(checked.error)}`);
        }
      }
      const { id, result } = calls.open(opts.onProgress as ((d: unknown) => void) | undefined);
      ws.send(JSON.stringify({ type: 'request', id, method, params: checked.data }));
      opts.signal?.addEventListener('abort', () => ws.send(JSON.stringify({ type: 'cancel', id })), { once: true });
      const answer = API[method].result.safeParse(await result);
      if (!answer.success) throw new KbError('INTERNAL', `the server's answer to ${method} is not kb's: ${describeIssues(answer.error)}`);
      return answer.data;
    };
  // One function per method, each answering with its method's result type (api.ts).
  const methods = Object.fromEntries(METHODS.map((m) => [m, call(m)])) as unknown as KbClient;
  return Object.assign(methods, {
    on: <E extends EventName>(event: E, handler: (data: EventData<E>) => void) => calls.on(event, handler),
    settled: async () => undefined,
    close: () => ws.close(),
    origin: base.origin,
    get open() {
      return ws.readyState === ws.OPEN;
    },
  });
}
