// The vector half on PostgreSQL with pgvector, on a real server: the HNSW index finds what an exact
// scan finds (filtered too), a chunk deleted takes its vector with it, two processes never embed the
// same chunks, and a database without pgvector searches by words and says what to run.
import { actingFor } from '../src/worker/acting.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/index.js';
import { openPool, type PgPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PgStore } from '../src/worker/store/postgres/pg-store.js';
import { PgVectorSide } from '../src/worker/store/postgres/vector-side.js';
import { PgVectorTables } from '../src/worker/store/postgres/vectors.js';
import type { VectorTable } from '../src/worker/store/vector-port.js';
import type { VectorRow } from '../src/worker/store/rows.js';
import { makeTestModel } from './support/make-test-model.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { docRow } from './support/rows.js';
import { corporaDir, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();
const hasCorpora = corporaDir() !== null;
const DIM = 64;

function random(seed: number): () => number {
  let s = seed;
  return (): number => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Unit vectors around 50 topic centres, as a collection's embeddings cluster. */
function clustered(n: number, seed: number, offset = 0): VectorRow[] {
  const centre = random(1);
  const centres = Array.from({ length: 50 }, () => Float32Array.from({ length: DIM }, () => centre() - 0.5));
  const rnd = random(seed);
  return Array.from({ length: n }, (_, i) => {
    const c = centres[Math.floor(rnd() * centres.length)]!;
    const v = c.map((x) => x + 0.4 * (rnd() - 0.5));
    const norm = Math.hypot(...v);
    const id = offset + i;
    return {
      chunk_id: `c${id}`,
      doc_id: `d${Math.floor(id / 10)}`,
      vector: v.map((x) => x / norm),
      type: id % 3 === 0 ? 'code' : 'markdown',
      lang: 'en',
      tags: id % 5 === 0 ? '|work|' : '||',
      path: `/notes/${id}.md`,
    };
  });
}

describe.skipIf(!available)('vectors on PostgreSQL (pgvector)', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  /** A store holding chunks c0… of documents d0… (a vector row refers to its chunk). */
  async function storeWithChunks(n: number): Promise<{ pool: PgPool; store: PgStore }> {
    const url = await cluster.database();
    const pool = await openPool(url);
    await migratePg(pool);
    const store = new PgStore(pool, url);
    for (let d = 0; d * 10 < n; d++) {
      await store.write(async (t) => {
        await t.documents.upsert(docRow(`d${d}`, `/notes/d${d}.md`));
        await t.chunks.replace(
          `d${d}`,
          Array.from({ length: Math.min(10, n - d * 10) }, (_, k) => ({
            id: `c${d * 10 + k}`,
            ordinal: k,
            heading: '',
            text: `passage ${d * 10 + k}`,
            anchor: { kind: 'lines' as const, start: k + 1, end: k + 1 },
            chunker_version: 1,
          })),
        );
      });
    }
    return { pool, store };
  }

  it('finds with its HNSW index what an exact scan finds, with filters too', async () => {
    const { pool } = await storeWithChunks(3000);
    try {
      const table = await new PgVectorTables(pool).open('chunks_0123456789abcdef');
      const rows = clustered(3000, 7);
      await table.add(rows);
      expect(await table.count()).toBe(3000);
      expect(await table.maintain(10_000)).toBeNull(); // below ann_min_rows: exact scans
      expect(await table.indexStats()).toBeNull();
      expect(await table.maintain(1000)).toBe('indexed');
      expect(await table.indexStats()).toEqual({ type: 'HNSW', indexed: 3000, unindexed: 0 });
      expect(await table.maintain(1000)).toBeNull(); // built once; pgvector keeps it up

      const queries = clustered(40, 99, 100_000);
      let found = 0;
      let filtered = 0;
      for (const q of queries) {
        const exact = new Set((await table.search(q.vector, 10, { tags: [] }, { exact: true })).map((h) => h.chunk_id));
        const approx = await table.search(q.vector, 10, { tags: [] });
        expect(approx).toHaveLength(10);
        for (let i = 1; i < approx.length; i++) expect(approx[i - 1]!.similarity).toBeGreaterThanOrEqual(approx[i]!.similarity);
        found += approx.filter((h) => exact.has(h.chunk_id)).length;
        const f = { tags: ['work'], type: 'code' };
        const exactF = new Set((await table.search(q.vector, 10, f, { exact: true })).map((h) => h.chunk_id));
        const approxF = await table.search(q.vector, 10, f);
        // Only rows that pass, and as many as asked: the index keeps scanning until they are found.
        expect(approxF.every((h) => Number(h.chunk_id.slice(1)) % 15 === 0)).toBe(true);
        expect(approxF).toHaveLength(10);
        filtered += approxF.filter((h) => exactF.has(h.chunk_id)).length;
      }
      expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
      expect(filtered / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
      // Within a path's documents; tags rewritten.
      const inDocs = await table.search(queries[0]!.vector, 50, { tags: [], pathDocs: ['d3', 'd4'] });
      expect(new Set(inDocs.map((h) => Math.floor(Number(h.chunk_id.slice(1)) / 10)))).toEqual(new Set([3, 4]));
      expect(await table.search(queries[0]!.vector, 5, { tags: [], pathDocs: [] })).toEqual([]);
      await table.setTags('d1', '|late|');
      expect((await table.search(queries[0]!.vector, 50, { tags: ['late'] })).map((h) => h.chunk_id).sort()).toEqual(
        Array.from({ length: 10 }, (_, k) => `c${10 + k}`).sort(),
      );

      // A team's user who may read one document in thirty: row-level security thins the index's
      // answers, and the scan goes on until as many as asked pass, with no filter of kb's own.
      await pool.query("UPDATE documents SET path = '/few/' || id || '.md' WHERE substr(id, 2)::int % 30 = 0");
      await pool.query("INSERT INTO collections (name, root, tags, glob, added_at) VALUES ('few', '/few', '', NULL, 0)");
      await pool.query("INSERT INTO users (name, role, token_id, token_hash, created_at) VALUES ('reader', 'reader', 'x', 'x', 0)");
      await pool.query("INSERT INTO collection_grants (collection, grantee) VALUES ('few', 'reader')");
      for (const q of queries.slice(0, 10)) {
        const mine = await actingFor('reader', () => table.search(q.vector, 10, { tags: [] }));
        expect(mine).toHaveLength(10);
        expect(mine.every((h) => Math.floor(Number(h.chunk_id.slice(1)) / 10) % 30 === 0)).toBe(true);
      }
    } finally {
      await pool.end();
    }
  });

  it('loses a vector with its chunk, in the same transaction, and never writes one for a chunk already gone', async () => {
    const { pool, store } = await storeWithChunks(20);
    try {
      const table = await new PgVectorTables(pool).open('chunks_fedcba9876543210');
      await table.add(clustered(20, 3));
      await store.write((t) => t.documents.delete('d0'));
      expect(await table.count()).toBe(10);
      expect([...(await table.ids())].every((id) => Number(id.slice(1)) >= 10)).toBe(true);
      // An embedding that finished after its chunk was deleted is not kept.
      await table.add(clustered(20, 3));
      expect(await table.count()).toBe(10);
    } finally {
      await pool.end();
    }
  });

  it('asks the live table for the passages queued since its last sync, and queues every passage for a table that goes live', async () => {
    const { pool } = await storeWithChunks(30);
    try {
      const side = new PgVectorSide(pool);
      const tables = new PgVectorTables(pool);
      const missing = async (t: VectorTable): Promise<number[]> =>
        (await t.difference())!.missing.map((id) => Number(id.slice(1))).sort((a, b) => a - b);
      const a = await tables.open('chunks_aaaaaaaaaaaaaaaa');
      await a.add(clustered(20, 3));
      await side.setBinding('live', { model: 'm', fingerprint: 'aaaaaaaaaaaaaaaa', table: a.name });
      expect(await missing(a)).toEqual(Array.from({ length: 10 }, (_, i) => 20 + i));
      await a.add(clustered(10, 3, 20));
      expect(await missing(a)).toEqual([]);
      // A table built beside it (a reindex) lacks what was added meanwhile; live, it is asked for it —
      // queued as the engine, whoever's session made the switch.
      const b = await tables.open('chunks_bbbbbbbbbbbbbbbb');
      await b.add(clustered(25, 3));
      expect(await missing(b)).toEqual([25, 26, 27, 28, 29]);
      await actingFor('nobody', () => side.setBinding('live', { model: 'm', fingerprint: 'bbbbbbbbbbbbbbbb', table: b.name }));
      expect(await missing(b)).toEqual([25, 26, 27, 28, 29]);
      await b.add(clustered(5, 3, 25));
      expect(await missing(b)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it.skipIf(!hasCorpora)('embeds each chunk once when two processes ingest into one database at the same time', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++) files[`a/n${i}.md`] = `# Note ${i}\n\nThe heron came back to pond ${i}.\n`;
    for (let i = 0; i < 60; i++) files[`b/m${i}.md`] = `# Memo ${i}\n\nThe otter swam past rock ${i}.\n`;
    await writeTree(dir, files);
    const model = makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') });
    const one = await openEngine({ dataDir: join(dir, 'one'), config: { store: { url } } });
    const two = await openEngine({ dataDir: join(dir, 'two'), config: { store: { url } } });
    try {
      await one.importModel(model, 'all-MiniLM-L6-v2');
      await two.importModel(model, 'all-MiniLM-L6-v2');
      const [a, b] = await Promise.all([one.ingest([join(dir, 'a')]), two.ingest([join(dir, 'b')])]);
      const chunks = (await one.status()).chunks;
      expect(chunks).toBeGreaterThanOrEqual(120);
      // Each pass waited for the other's and embedded only what was still missing.
      expect((a.embedded ?? 0) + (b.embedded ?? 0)).toBe(chunks);
      expect(await one.syncVectors()).toEqual({ embedded: 0, deleted: 0 });
      expect((await two.search({ query: 'heron', mode: 'vector', top: 200 })).results).toHaveLength(chunks);
    } finally {
      one.close();
      two.close();
    }
  });

  it.skipIf(!hasCorpora)('reindexes into a new table beside the live one, switches to it, and drops the old', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 20; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\nThe heron came back to pond ${i}.\n`;
    await writeTree(dir, files);
    const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url } } });
    const pool = await openPool(url);
    const tablesNow = async (): Promise<string[]> =>
      (
        await pool.query<{ t: string }>(
          "SELECT relname AS t FROM pg_class WHERE relname ~ '^chunks_[0-9a-f]{16}' AND relkind = 'r' ORDER BY 1",
        )
      ).rows.map((r) => r.t);
    try {
      await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
      await engine.ingest([join(dir, 'notes')]);
      const before = await tablesNow();
      expect(before).toHaveLength(1);
      const r = await engine.reindex();
      expect(r).toMatchObject({ model: 'all-MiniLM-L6-v2', embedded: 20, cancelled: false });
      const after = await tablesNow();
      expect(after).toHaveLength(1);
      expect(after[0]).not.toBe(before[0]);
      expect((await engine.search({ query: 'heron', mode: 'vector', top: 50 })).results).toHaveLength(20);
      expect(await engine.syncVectors()).toEqual({ embedded: 0, deleted: 0 });
    } finally {
      engine.close();
      await pool.end();
    }
  });

  it.skipIf(!hasCorpora)('searches by words in a database without pgvector, and says what an administrator runs', async () => {
    const url = await cluster.database({ vector: false });
    const dir = await tempDir();
    await writeTree(dir, { 'notes/git.md': '# Git\n\nInstalling git on Debian.\n' });
    const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url } } });
    try {
      await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
      const s = await engine.ingest([join(dir, 'notes')]);
      expect(s).toMatchObject({ added: 1, failed: 0, vector: { status: 'unavailable' } });
      const r = await engine.search({ query: 'git' });
      expect(r.vector).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/CREATE EXTENSION vector/) });
      expect(r.results[0]?.citation.path).toBe(join(dir, 'notes/git.md'));
      const d = await engine.doctor();
      expect(d.checks.find((c) => c.name === 'pgvector')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/CREATE EXTENSION vector/),
      });
    } finally {
      engine.close();
    }
  });
});
