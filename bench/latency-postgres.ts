// `npm run bench -- latency --store postgres`: the latency bench's 100,000-chunk corpus ingested into
// a throwaway PostgreSQL cluster through the engine (notes a second), then the same query mix searched
// in-process: lexical p50 / p95 (goal ≤ 25 ms p95 at 100k). Then the vector half: every chunk given a
// generated vector in pgvector (as bench/hybrid.ts does for LanceDB: embedding 100k chunks would take
// half an hour, and a vector's values do not change what a search of it costs), the HNSW index built,
// and the mix searched hybrid with each query embedded by the minilm-l6 test model (goal ≤ 60 ms p95),
// with the index's recall@10 against an exact scan.
import { join } from 'node:path';
import { modelSpec } from '../src/worker/embed/registry.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { openPool, type PgPool } from '../src/worker/store/postgres/connect.js';
import { PgVectorSide } from '../src/worker/store/postgres/vector-side.js';
import { PgVectorTables } from '../src/worker/store/postgres/vectors.js';
import type { VectorTable } from '../src/worker/store/vector-port.js';
import { fingerprintOf } from '../src/worker/vectors/semantic.js';
import { tableName } from '../src/worker/vectors/table-name.js';
import { startCluster } from '../test/support/postgres.js';
import { Rng, trainModel } from './corpus.js';
import { testModel } from './embed.js';
import { MODEL, pointsAround, topicCentres, VECTOR_SEED, vectorsFor } from './hybrid.js';
import { corpusIndex, queries } from './latency.js';
import { benchDir, corporaDir, freshDir, percentile, type BenchResult } from './util.js';

/**
 * What embedding every chunk would leave, in a minute: the minilm-l6 test model installed, a
 * generated vector (points around topic centres, bench/hybrid.ts) for every chunk in pgvector, the
 * HNSW index built and the binding set. A vector's values do not change what searching it costs.
 */
export async function generatedVectors(
  engine: Engine,
  pool: PgPool,
): Promise<{ table: VectorTable; count: number; writeS: number; indexS: number }> {
  await engine.importModel(testModel(), MODEL);
  const spec = modelSpec(MODEL)!;
  const side = new PgVectorSide(pool);
  const table = await new PgVectorTables(pool).open(tableName(fingerprintOf(spec)));
  const ids = [...(await side.chunkIds())];
  const rng = new Rng(VECTOR_SEED);
  const writeStarted = performance.now();
  for (let i = 0; i < ids.length; i += 5000) {
    const feed = await side.feed(ids.slice(i, i + 5000));
    const vs = vectorsFor(feed.length, spec.dimension, rng);
    await table.add(
      feed.map((r, j) => ({
        chunk_id: r.id,
        doc_id: r.doc_id,
        vector: vs[j]!,
        type: r.type,
        lang: r.lang,
        tags: r.tags,
        path: r.path,
      })),
    );
  }
  const writeS = (performance.now() - writeStarted) / 1000;
  const indexStarted = performance.now();
  await table.maintain(0);
  const indexS = (performance.now() - indexStarted) / 1000;
  await side.setBinding('live', {
    model: MODEL,
    fingerprint: fingerprintOf(spec),
    table: table.name,
    synced_generation: await side.generation(),
  });
  if ((await engine.syncVectors())?.embedded !== 0) throw new Error('the generated vectors did not cover every chunk');
  return { table, count: ids.length, writeS, indexS };
}

export async function benchLatencyPostgres(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  await corpusIndex(model); // the notes, written once (.bench/corpus100k/notes)
  const notes = join(benchDir('corpus100k'), 'notes');
  // PostgreSQL's default shared_buffers (128 MB) is sized for a small machine; a server holding a
  // team's index is given a quarter of its memory (README), here 1 GB of the 24.
  const cluster = await startCluster({ shared_buffers: '1GB' });
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
      const time = async (mode: 'lexical' | 'hybrid'): Promise<{ ms: number; query: string }[]> => {
        for (const q of qs.slice(0, 100)) await engine.search({ mode, top: 10, ...q }); // warm caches and plans
        const times: { ms: number; query: string }[] = [];
        for (const q of qs.slice(100)) {
          const t = performance.now();
          const r = await engine.search({ mode, top: 10, ...q });
          times.push({ ms: performance.now() - t, query: JSON.stringify(q) });
          if (mode === 'hybrid' && r.vector?.status !== 'ok') throw new Error(`vectors unavailable: ${r.vector?.reason}`);
        }
        return times;
      };
      const lexical = await time('lexical');

      // The vector half: the test model installed, a generated vector for every chunk, the index built.
      const pool = await openPool(url);
      let vectorLines: string[];
      let hybrid: { ms: number; query: string }[];
      let recall: number;
      try {
        const { table, count, writeS, indexS } = await generatedVectors(engine, pool);
        const probes = pointsAround(topicCentres(modelSpec(MODEL)!.dimension, new Rng(VECTOR_SEED)), 50, new Rng(4242));
        let found = 0;
        for (const q of probes) {
          const exact = new Set((await table.search(q, 10, { tags: [] }, { exact: true })).map((h) => h.chunk_id));
          found += (await table.search(q, 10, { tags: [] })).filter((h) => exact.has(h.chunk_id)).length;
        }
        recall = found / (probes.length * 10);
        const bytes = Number((await pool.query<{ b: string }>(`SELECT pg_total_relation_size('${table.name}') AS b`)).rows[0]!.b);
        hybrid = await time('hybrid');
        vectorLines = [
          `${count} 384-d vectors written in ${writeS.toFixed(0)} s; HNSW index built in ${indexS.toFixed(0)} s; table with index ${(bytes / 2 ** 20).toFixed(0)} MB`,
          `HNSW recall@10 against an exact scan: ${recall.toFixed(3)} (50 queries)`,
        ];
      } finally {
        await pool.end();
      }
      const stats = (times: { ms: number; query: string }[]): { p: (q: number) => number; slowest: { ms: number; query: string }[] } => {
        const sorted = times.map((x) => x.ms).sort((a, b) => a - b);
        return { p: (q) => percentile(sorted, q), slowest: [...times].sort((a, b) => b.ms - a.ms).slice(0, 5) };
      };
      const lex = stats(lexical);
      const hyb = stats(hybrid);
      return {
        name: 'latency (PostgreSQL)',
        lines: [
          `${s.added} notes, ${chunks} chunks ingested into PostgreSQL in ${ingestS.toFixed(0)} s (${(s.added / ingestS).toFixed(0)} notes/s); the common words' tops ranked ${topsS.toFixed(0)} s later`,
          `lexical in-process: p50 ${lex.p(50).toFixed(1)} ms, p95 ${lex.p(95).toFixed(1)} ms, p99 ${lex.p(99).toFixed(1)} ms (${lexical.length} queries)`,
          ...lex.slowest.map((x) => `  slowest: ${x.ms.toFixed(0)} ms ${x.query}`),
          ...vectorLines,
          `hybrid in-process (query embedded, HNSW, fused, snippets): p50 ${hyb.p(50).toFixed(1)} ms, p95 ${hyb.p(95).toFixed(1)} ms, p99 ${hyb.p(99).toFixed(1)} ms`,
          ...hyb.slowest.map((x) => `  slowest: ${x.ms.toFixed(0)} ms ${x.query}`),
        ],
        checks: [
          { what: 'ingest into PostgreSQL (notes/s)', value: s.added / ingestS, target: 100, better: 'higher' },
          { what: 'lexical p95 on PostgreSQL', value: lex.p(95), target: 25, better: 'lower', unit: ' ms' },
          { what: 'hybrid p95 on PostgreSQL (HNSW)', value: hyb.p(95), target: 60, better: 'lower', unit: ' ms' },
          { what: 'HNSW recall@10 against exact', value: recall, target: 0.95, better: 'higher' },
        ],
      };
    } finally {
      engine.close();
    }
  } finally {
    cluster.stop();
  }
}
