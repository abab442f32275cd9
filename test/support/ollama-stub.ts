// A stand-in Ollama server on 127.0.0.1 for tests and benchmarks (no model can be had here): it speaks
// the real API — /api/version, /api/tags, /api/show, /api/chat streaming NDJSON or not, /api/embed —
// and answers what it is scripted to: a reply's tokens, delays, an error mid-stream, a missing model.
// Its embeddings are hashed bags of words (deterministic, L2-normalised, texts sharing words are
// near): plumbing, not meaning.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ChatScript {
  /** The answer, token by token. */
  tokens: string[];
  /** Before the first token (a model loading), and between tokens. */
  firstDelayMs?: number;
  delayMs?: number;
  /** After this many tokens, an error object in the stream, as Ollama sends one. */
  errorAfter?: number;
}

export interface StubOptions {
  /** Models that are "pulled"; a chat or show for any other answers 404 like Ollama. */
  models?: string[];
  contextLength?: number;
  /** What /api/chat answers; a function gets each request's messages. */
  chat?: ChatScript | ((messages: { role: string; content: string }[]) => ChatScript);
  /** /api/embed: the vectors' dimension (768, as nomic-embed-text's), and failures to script. */
  embed?: {
    dimension?: number;
    /** Answer this many /api/embed requests (counted from set()), then drop connections as a stopped server would. */
    downAfter?: number;
    /** Answer with a 500 instead, from the request after this many. */
    failAfter?: number;
    delayMs?: number;
  };
}

function fnv(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * A hashed bag of words plus a little seeded noise in every dimension: deterministic, normalised,
 * texts sharing words are near, and dense like a real model's vectors (so its JSON is as long).
 */
export function stubVector(text: string, dimension: number): number[] {
  const v = new Array<number>(dimension).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const h = fnv(w);
    v[h % dimension]! += (h & 1) === 0 ? 1 : -1;
  }
  let s = fnv(text) || 1;
  for (let d = 0; d < dimension; d++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    v[d]! += ((s >>> 0) / 4294967296 - 0.5) * 0.02;
  }
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return v.map((x) => x / norm);
}

export interface OllamaStub {
  url: string;
  /** Every request, in order: path and body. */
  calls: { path: string; body: unknown }[];
  /** When the first token of the last chat went out (performance.now() in this process). */
  firstTokenAt: number | null;
  set(opts: StubOptions): void;
  close(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function startOllamaStub(initial: StubOptions = {}): Promise<OllamaStub> {
  let opts: StubOptions = initial;
  const calls: OllamaStub['calls'] = [];
  const stub = { firstTokenAt: null as number | null };
  let embedCalls = 0;
  const pulled = (m: string): boolean => (opts.models ?? ['llama3.2:latest']).some((x) => x === m || x === `${m}:latest`);
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => (raw += d.toString()));
    req.on('end', () => {
      void (async () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
        const path = (req.url ?? '').split('?')[0]!;
        calls.push({ path, body });
        const json = (status: number, v: unknown): void =>
          void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
        const missing = (): void => json(404, { error: `model '${String(body.model)}' not found` });
        if (path === '/api/version') return json(200, { version: '0.12.0' });
        if (path === '/api/tags')
          return json(200, {
            models: (opts.models ?? ['llama3.2:latest']).map((name) => ({
              name,
              model: name,
              size: 2_000_000_000,
              digest: 'stub',
              details: {},
            })),
          });
        if (path === '/api/show') {
          if (!pulled(String(body.model))) return missing();
          return json(200, {
            modelfile: '',
            parameters: '',
            template: '',
            details: { family: 'llama' },
            model_info: { 'general.architecture': 'llama', 'llama.context_length': opts.contextLength ?? 131072 },
            capabilities: ['completion'],
          });
        }
        if (path === '/api/embed') {
          const e = opts.embed ?? {};
          embedCalls++;
          if (e.downAfter !== undefined && embedCalls > e.downAfter) {
            req.socket.destroy(); // as a server that stopped: the connection drops
            return;
          }
          if (!pulled(String(body.model))) return missing();
          if (e.failAfter !== undefined && embedCalls > e.failAfter)
            return json(500, { error: 'llama runner process has terminated: signal: killed' });
          if (e.delayMs) await sleep(e.delayMs);
          const input = Array.isArray(body.input) ? (body.input as string[]) : [String(body.input)];
          const dimension = e.dimension ?? 768;
          return json(200, {
            model: String(body.model),
            embeddings: input.map((t) => stubVector(t, dimension)),
            total_duration: 1,
            load_duration: 0,
            prompt_eval_count: input.length,
          });
        }
        if (path !== '/api/chat') return json(404, { error: 'not found' });
        if (!pulled(String(body.model))) return missing();
        const s =
          typeof opts.chat === 'function'
            ? opts.chat((body.messages ?? []) as { role: string; content: string }[])
            : (opts.chat ?? { tokens: ['OK.'] });
        const model = String(body.model);
        const at = (): string => new Date().toISOString();
        if (body.stream === false) {
          await sleep(s.firstDelayMs ?? 0);
          return json(200, {
            model,
            created_at: at(),
            message: { role: 'assistant', content: s.tokens.join('') },
            done: true,
            done_reason: 'stop',
          });
        }
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        await sleep(s.firstDelayMs ?? 0);
        for (const [i, t] of s.tokens.entries()) {
          if (res.destroyed) return;
          if (s.errorAfter !== undefined && i === s.errorAfter) {
            res.end(`${JSON.stringify({ error: 'an error was encountered while running the model: CUDA error: out of memory' })}\n`);
            return;
          }
          if (i > 0 && s.delayMs) await sleep(s.delayMs);
          if (i === 0) stub.firstTokenAt = performance.now();
          res.write(`${JSON.stringify({ model, created_at: at(), message: { role: 'assistant', content: t }, done: false })}\n`);
        }
        res.end(
          `${JSON.stringify({ model, created_at: at(), message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop' })}\n`,
        );
      })();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    get firstTokenAt() {
      return stub.firstTokenAt;
    },
    set: (o) => {
      opts = o;
      embedCalls = 0; // downAfter and failAfter count from here
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

// As a process of its own (benchmarks: the stub's work must not share the measured process's thread):
//   tsx test/support/ollama-stub.ts [MODEL…]   prints its URL, answers until killed.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const models = process.argv.slice(2);
  const stub = await startOllamaStub(models.length > 0 ? { models } : {});
  setInterval(() => stub.calls.splice(0), 1000); // nobody reads them here
  console.log(stub.url);
}
