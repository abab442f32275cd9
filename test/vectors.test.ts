// The vector store on its own (real LanceDB in a temp dir): the approximate index must find what an
// exact scan finds, rows added after it was built must be found at once, and upkeep folds them in.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as lancedb from '@lancedb/lancedb';
import type { VectorRow } from '../src/worker/store/rows.js';
import { indexWanted, VectorStore } from '../src/worker/vectors/store.js';
import { tempDir } from './helpers.js';

const DIM = 384;

function random(seed: number): { rnd: () => number; gauss: () => number } {
  let s = seed;
  const rnd = (): number => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  return { rnd, gauss: () => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd()) };
}

/** The topics of the collection: fixed, so rows and queries of any seed are about the same things. */
const centres = ((): Float32Array[] => {
  const { gauss } = random(1);
  return Array.from({ length: 200 }, () => Float32Array.from({ length: DIM }, gauss));
})();

/** Seeded unit vectors around the topic centres, shaped like embeddings of a collection of notes. */
function clustered(n: number, seed: number, offset = 0): VectorRow[] {
  const { rnd, gauss } = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const c = centres[Math.floor(rnd() * centres.length)]!;
    const v = Float32Array.from({ length: DIM }, (_, d) => c[d]! + 1.2 * gauss());
    const norm = Math.hypot(...v);
    return {
      chunk_id: `c${offset + i}`,
      doc_id: `d${Math.floor((offset + i) / 10)}`,
      vector: v.map((x) => x / norm),
      type: (offset + i) % 3 === 0 ? 'code' : 'markdown',
      lang: 'en',
      tags: '||',
      path: `/notes/${offset + i}.md`,
    };
  });
}

describe('the approximate vector index', () => {
  it('finds what an exact scan finds, including rows added after it was built', async () => {
    const store = await VectorStore.open(join(await tempDir(), 'vectors'), 'chunks_test');
    const rows = clustered(6000, 7);
    for (let i = 0; i < rows.length; i += 2000) await store.add(rows.slice(i, i + 2000));
    expect(await store.indexStats()).toBeNull();
    await store.buildIndex();
    expect(await store.indexStats()).toEqual({ type: 'IVF_PQ', name: 'vector_pq8', indexed: 6000, unindexed: 0 });

    const queries = clustered(60, 99, 100_000); // new points on the same topics, as queries are
    let found = 0;
    let filteredFound = 0;
    for (const q of queries) {
      const exact = new Set((await store.search(q.vector, 10, { tags: [] }, { exact: true })).map((h) => h.chunk_id));
      const approx = await store.search(q.vector, 10, { tags: [] });
      found += approx.filter((h) => exact.has(h.chunk_id)).length;
      const exactCode = new Set((await store.search(q.vector, 10, { tags: [], type: 'code' }, { exact: true })).map((h) => h.chunk_id));
      const approxCode = await store.search(q.vector, 10, { tags: [], type: 'code' });
      expect(approxCode.every((h) => Number(h.chunk_id.slice(1)) % 3 === 0)).toBe(true);
      filteredFound += approxCode.filter((h) => exactCode.has(h.chunk_id)).length;
    }
    const recall = found / (queries.length * 10);
    const filteredRecall = filteredFound / (queries.length * 10);
    console.log(`recall@10 vs exact: ${recall.toFixed(3)}, with a type filter: ${filteredRecall.toFixed(3)}`);
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(filteredRecall).toBeGreaterThanOrEqual(0.95);

    const late = clustered(300, 5, 6000);
    await store.add(late);
    expect(await store.indexStats()).toEqual({ type: 'IVF_PQ', name: 'vector_pq8', indexed: 6000, unindexed: 300 });
    for (const r of late.slice(0, 20)) expect((await store.search(r.vector, 1, { tags: [] }))[0]!.chunk_id).toBe(r.chunk_id);
    await store.optimize();
    expect(await store.indexStats()).toEqual({ type: 'IVF_PQ', name: 'vector_pq8', indexed: 6300, unindexed: 0 });
    expect((await store.fragments()).total).toBeLessThanOrEqual(2);
    for (const r of late.slice(20, 40)) expect((await store.search(r.vector, 1, { tags: [] }))[0]!.chunk_id).toBe(r.chunk_id);
  });

  it("builds an older kb's index again as IVF_PQ, once", async () => {
    const dir = join(await tempDir(), 'vectors');
    let store = await VectorStore.open(dir, 'chunks_old');
    await store.add(clustered(3000, 11));
    // What an older kb built.
    const table = await (await lancedb.connect(dir)).openTable('chunks_old');
    await table.createIndex('vector', { name: 'vector_idx', config: lancedb.Index.hnswSq({ distanceType: 'cosine' }), replace: true });
    store = await VectorStore.open(dir, 'chunks_old');
    const old = await store.indexStats();
    expect(old?.type).toBe('IVF_HNSW_SQ');
    expect(indexWanted(3000, old, 10_000)).toBe(true);
    await store.buildIndex();
    const now = await store.indexStats();
    expect(now).toMatchObject({ type: 'IVF_PQ', name: 'vector_pq8', indexed: 3000 });
    const fresh = async (): Promise<lancedb.Table> => (await lancedb.connect(dir)).openTable('chunks_old');
    expect((await (await fresh()).listIndices()).map((i) => i.name)).toEqual(['vector_pq8']);
    // Built, it is kept: no rebuild at every upkeep.
    expect(indexWanted(3000, now, 10_000)).toBe(false);
    expect(indexWanted(9999, null, 10_000)).toBe(false);
    expect(indexWanted(10_000, null, 10_000)).toBe(true);
    // An older kb's IVF_PQ, of a code per 16 dimensions, is built again too; searches go on meanwhile.
    const again = await fresh();
    await again.createIndex('vector', { name: 'vector_idx', config: lancedb.Index.ivfPq({ distanceType: 'cosine' }), replace: true });
    await again.dropIndex('vector_pq8');
    store = await VectorStore.open(dir, 'chunks_old');
    const coarse = await store.indexStats();
    expect(coarse).toMatchObject({ type: 'IVF_PQ', name: 'vector_idx' });
    expect(indexWanted(3000, coarse, 10_000)).toBe(true);
    await store.buildIndex();
    expect(await store.indexStats()).toMatchObject({ name: 'vector_pq8', indexed: 3000 });
  });
});
