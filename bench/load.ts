// Load: 16 clients searching through kb serve (one WebSocket each) while a 17th ingests 5,000 files.
// Search latency as the clients see it (request → response), idle and during the ingest; errors.
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import WebSocket from 'ws';
import { loadCranfield } from './cranfield.js';
import { corporaDir, freshDir, percentile, repoRoot, type BenchResult } from './util.js';

interface Conn {
  call(method: string, params: unknown): Promise<{ result?: unknown; error?: { message: string } }>;
  close(): void;
}

function connect(port: number, token: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, {
      origin: `http://127.0.0.1:${port}`,
      maxPayload: 64 * 1024 * 1024,
    });
    const waiting = new Map<number, (m: { result?: unknown; error?: { message: string } }) => void>();
    let next = 1;
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { type: string; id?: number; result?: unknown; error?: { message: string } };
      if (m.type === 'response' && m.id !== undefined) waiting.get(m.id)?.(m);
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

export async function benchLoad(): Promise<BenchResult> {
  const work = await freshDir('load');
  const c = loadCranfield(join(corporaDir(), 'ir', 'cranfield'));
  await mkdir(join(work, 'base'), { recursive: true });
  for (const d of c.docs) await writeFile(join(work, 'base', `${d.id}.md`), `# ${d.title}\n\n${d.text}\n`);
  const words = c.docs.flatMap((d) => d.text.split(/\s+/)).filter((w) => /^[a-z]{4,}$/.test(w));
  for (let i = 0; i < 5000; i++) {
    const dir = join(work, 'incoming', `d${i % 50}`);
    if (i < 50) await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, `n${i}.md`),
      `# Note ${i}\n\n${Array.from({ length: 120 }, (_, k) => words[(i * 131 + k * 17) % words.length]).join(' ')}\n`,
    );
  }
  const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'serve', '--json', '--data-dir', join(work, 'data')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, KB_CONFIG: join(work, 'none.yaml') },
  });
  const { url, port } = JSON.parse(
    await new Promise<string>((res) => {
      let s = '';
      child.stdout.on('data', (d: Buffer) => (s += d.toString()).includes('\n}') && res(s));
    }),
  ) as { url: string; port: number };
  const token = new URL(url).searchParams.get('token')!;
  try {
    const admin = await connect(port, token);
    await admin.call('ingest', { paths: [join(work, 'base')] });
    const clients = await Promise.all(Array.from({ length: 16 }, () => connect(port, token)));
    const queries = c.queries;
    let errors = 0;
    const run = async (until: () => boolean, into: number[]): Promise<void> => {
      await Promise.all(
        clients.map(async (cl, k) => {
          for (let i = k; !until(); i += 16) {
            const t = performance.now();
            const r = await cl.call('search', { query: queries[i % queries.length]!, mode: 'lexical', top: 10 });
            into.push(performance.now() - t);
            if (r.error) errors++;
          }
        }),
      );
    };
    const idle: number[] = [];
    const idleEnd = performance.now() + 10_000;
    await run(() => performance.now() > idleEnd, idle);
    const busy: number[] = [];
    let ingesting = true;
    const t0 = performance.now();
    const ingest = admin.call('ingest', { paths: [join(work, 'incoming')] }).then((r) => {
      ingesting = false;
      return r;
    });
    await run(() => !ingesting, busy);
    const r = (await ingest) as { result?: { added: number }; error?: { message: string } };
    const ingestS = (performance.now() - t0) / 1000;
    for (const cl of clients) cl.close();
    admin.close();
    idle.sort((a, b) => a - b);
    busy.sort((a, b) => a - b);
    const ratio = percentile(busy, 95) / percentile(idle, 95);
    return {
      name: 'load',
      lines: [
        `16 clients searching Cranfield (1,400 abstracts) through kb serve, idle: ${idle.length} searches, p50 ${percentile(idle, 50).toFixed(1)} ms, p95 ${percentile(idle, 95).toFixed(1)} ms`,
        `the same while a 17th client ingests 5,000 notes (${r.result?.added ?? 0} added in ${ingestS.toFixed(1)} s): ${busy.length} searches, p50 ${percentile(busy, 50).toFixed(1)} ms, p95 ${percentile(busy, 95).toFixed(1)} ms (${ratio.toFixed(2)}× idle); ${errors} errors${r.error ? `; ingest error: ${r.error.message}` : ''}`,
      ],
      checks: [
        { what: 'search p95 during ingest, × idle', value: ratio, target: 3, better: 'lower', unit: '×' },
        { what: 'errors', value: errors + (r.error ? 1 : 0), target: 0, better: 'lower' },
      ],
    };
  } finally {
    child.kill();
  }
}
