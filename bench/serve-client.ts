// A `kb serve` started for a benchmark, and clients of its WebSocket RPC: latency as the app and
// kb tui see it (request → response through the server), not in-process.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { servedFrom } from '../tools/serve-output.js';
import WebSocket from 'ws';
import { repoRoot } from './util.js';

export interface Conn {
  call(method: string, params: unknown): Promise<{ result?: unknown; error?: { message: string } }>;
  close(): void;
}

export interface Served {
  port: number;
  token: string;
  child: ChildProcess;
  connect(): Promise<Conn>;
  stop(): void;
}

/** kb serve on a free port over `dataDir`, ready when it prints its address. */
export async function startServe(dataDir: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'serve', '--json', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const { port, token } = servedFrom(
    await new Promise<string>((res, rej) => {
      let s = '';
      child.stdout!.on('data', (d: Buffer) => (s += d.toString()).includes('\n}') && res(s));
      child.once('exit', (code) => rej(new Error(`kb serve exited (${code}) before it was ready`)));
    }),
  );
  return { port, token, child, connect: () => connect(port, token), stop: () => void child.kill() };
}

export function connect(port: number, token: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
      maxPayload: 256 * 1024 * 1024,
    });
    const waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();
    let next = 1;
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { type: string; id?: number; result?: unknown; error?: { message: string } };
      if (m.type === 'response' && m.id !== undefined) {
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      }
    });
    ws.on('open', () =>
      resolve({
        call: (method, params) =>
          new Promise((res) => {
            const id = next++;
            waiting.set(id, res);
            ws.send(JSON.stringify({ type: 'request', id, method, params }));
          }),
        close: () => ws.close(),
      }),
    );
    ws.on('error', reject);
  });
}
