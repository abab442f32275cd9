// `npm run bench -- latency --store postgres`: the latency bench's 100,000-chunk corpus ingested into
// a throwaway PostgreSQL cluster through the engine (notes a second), then the same query mix searched
// in-process: lexical p50 / p95 on PostgreSQL (goal ≤ 25 ms p95 at 100k). Hybrid waits for pgvector.
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { startCluster } from '../test/support/postgres.js';
import { trainModel } from './corpus.js';
import { corpusIndex, queries } from './latency.js';
import { benchDir, corporaDir, freshDir, percentile, type BenchResult } from './util.js';

export async function benchLatencyPostgres(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  await corpusIndex(model); // the notes, written once (.bench/corpus100k/notes)
  const notes = join(benchDir('corpus100k'), 'notes');
  const cluster = await startCluster();
  try {
    const url = await cluster.database();
    const dataDir = join(await freshDir('latency-pg'), 'data');
    const engine = await openEngine({ dataDir, config: { store_originals: 'reference', store: { url } } });
    try {
      const started = performance.now();
      const s = await engine.ingest([notes]);
      const ingestS = (performance.now() - started) / 1000;
      const chunks = (await engine.status()).chunks;
      // The heavy words' tops are built after the ingest, on their own thread: searched once they are.
      const topsStarted = performance.now();
      for (let w = engine.backgroundWork(); w; w = engine.backgroundWork()) await w;
      const topsS = (performance.now() - topsStarted) / 1000;
      const qs = queries(model, 700);
      for (const q of qs.slice(0, 100)) await engine.search({ mode: 'lexical', top: 10, ...q }); // warm caches and plans
      const times: { ms: number; query: string }[] = [];
      for (const q of qs.slice(100)) {
        const t = performance.now();
        await engine.search({ mode: 'lexical', top: 10, ...q });
        times.push({ ms: performance.now() - t, query: JSON.stringify(q) });
      }
      const sorted = times.map((x) => x.ms).sort((a, b) => a - b);
      const p = (q: number): number => percentile(sorted, q);
      const slowest = [...times].sort((a, b) => b.ms - a.ms).slice(0, 5);
      return {
        name: 'latency (PostgreSQL)',
        lines: [
          `${s.added} notes, ${chunks} chunks ingested into PostgreSQL in ${ingestS.toFixed(0)} s (${(s.added / ingestS).toFixed(0)} notes/s); the common words' tops ranked ${topsS.toFixed(0)} s later`,
          `lexical in-process: p50 ${p(50).toFixed(1)} ms, p95 ${p(95).toFixed(1)} ms, p99 ${p(99).toFixed(1)} ms (${sorted.length} queries)`,
          ...slowest.map((x) => `  slowest: ${x.ms.toFixed(0)} ms ${x.query}`),
        ],
        checks: [
          { what: 'ingest into PostgreSQL (notes/s)', value: s.added / ingestS, target: 100, better: 'higher' },
          { what: 'lexical p95 on PostgreSQL', value: p(95), target: 25, better: 'lower', unit: ' ms' },
        ],
      };
    } finally {
      engine.close();
    }
  } finally {
    cluster.stop();
  }
}
