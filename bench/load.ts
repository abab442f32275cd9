// Load: 16 clients searching through kb serve (one WebSocket each) while a 17th ingests 5,000 files.
// Search latency as the clients see it (request → response), idle and during the ingest; errors.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCranfield } from './cranfield.js';
import { startServe } from './serve-client.js';
import { corporaDir, freshDir, percentile, type BenchResult } from './util.js';

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
  const served = await startServe(join(work, 'data'), { KB_CONFIG: join(work, 'none.yaml') });
  try {
    const admin = await served.connect();
    await admin.call('ingest', { paths: [join(work, 'base')] });
    const clients = await Promise.all(Array.from({ length: 16 }, () => served.connect()));
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
    served.stop();
  }
}
