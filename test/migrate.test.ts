// kb migrate --to postgresql://…: a personal SQLite index copied into PostgreSQL without reading any
// file again — the same documents, passages, tags, collections, originals and vectors, found the
// same way — and an interrupted copy resumed where it stopped.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { corporaDir, kbAsync, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();
const hasCorpora = corporaDir() !== null;

const NOTES: Record<string, string> = {
  'notes/otters.md': '# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n\n## Diet\n\nThey eat sea urchins.\n',
  'notes/rollback.md': '# Rolling back a deploy\n\nWhen a deploy goes wrong, run the rollback script and page the on-call engineer.\n',
  'notes/budget.txt': 'Quarterly budget review: travel costs rose, the zeppelin hangar lease was renewed.\n',
  'notes/broken.pdf': 'not a pdf at all',
};
for (let i = 0; i < 12; i++) NOTES[`notes/log-${i}.md`] = `# Log ${i}\n\nThe heron came back to pond ${i}; the otters stayed away.\n`;

describe.skipIf(!available || !hasCorpora)('kb migrate', () => {
  let cluster: PgCluster;
  let dir: string;
  let dataDir: string;
  let local: Engine;

  beforeAll(async () => {
    cluster = await startCluster();
    dir = await tempDir();
    dataDir = join(dir, 'data');
    await writeTree(dir, NOTES);
    local = await openEngine({ dataDir });
    await local.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
    await local.addCollection(join(dir, 'notes'), { name: 'notes', tags: ['mine'] });
    await local.ingest([join(dir, 'notes/otters.md')], { tags: ['animals'] });
  });
  afterAll(() => {
    local?.close();
    cluster?.stop();
  });

  it('copies the index whole, resuming an interrupted copy, and the copy searches as the original does', async () => {
    const url = await cluster.database();
    const ctl = new AbortController();
    const first = await local.migrateTo(url, { signal: ctl.signal, onProgress: (p) => p.done >= 3 && ctl.abort() });
    expect(first).toMatchObject({ cancelled: true, skipped: 0 });
    expect(first.documents).toBeGreaterThanOrEqual(3);
    const docs = await local.list();
    expect(first.documents).toBeLessThan(docs.length);
    local.close();

    // The rest, from the command line; what the first run copied is not copied again.
    const r = await kbAsync(['migrate', '--to', url, '--json'], { env: { KB_DATA_DIR: dataDir, KB_CONFIG: join(dir, 'none.yaml') } });
    expect(r.code).toBe(0);
    const second = r.json();
    expect(second).toMatchObject({ cancelled: false, skipped: first.documents, vectors_skipped: null });
    expect((second.documents as number) + first.documents).toBe(docs.length);
    expect(second.to).toMatch(/^postgresql:\/\/kb_test@127\.0\.0\.1:\d+\//);

    local = await openEngine({ dataDir });
    // The same data dir (the same imported model) on the database: nothing to embed, nothing to read again.
    const remote = await openEngine({ dataDir, config: { store: { url } } });
    try {
      expect(await remote.syncVectors()).toEqual({ embedded: 0, deleted: 0 });
      const strip = (ds: Awaited<ReturnType<Engine['list']>>): unknown[] =>
        ds
          .map((d) => ({ path: d.path, title: d.title, status: d.status, chunks: d.chunks, tags: d.tags }))
          .sort((a, b) => a.path.localeCompare(b.path));
      expect(strip(await remote.list())).toEqual(strip(await local.list()));
      expect((await remote.collections()).map((c) => [c.name, c.tags])).toEqual([['notes', ['mine']]]);
      for (const q of ['otters', 'rollback deploy', 'heron pond']) {
        for (const mode of ['lexical', 'vector'] as const) {
          const paths = async (e: Engine): Promise<string[]> =>
            (await e.search({ query: q, mode, top: 5 })).results.map((h) => h.citation.path);
          expect(await paths(remote)).toEqual(await paths(local));
        }
      }
      // The originals came along: another machine opens a document whose file is gone.
      const otters = (await local.list()).find((d) => d.path.endsWith('otters.md'))!;
      rmSync(join(dir, 'notes/otters.md'));
      const elsewhere = await openEngine({ dataDir: join(dir, 'elsewhere'), config: { store: { url } } });
      try {
        expect(readFileSync((await elsewhere.source(otters.doc_id)).file, 'utf8')).toBe(NOTES['notes/otters.md']);
      } finally {
        elsewhere.close();
      }
      // A second run finds everything there.
      expect(await local.migrateTo(url)).toMatchObject({ documents: 0, skipped: docs.length, vectors: 0, cancelled: false });
    } finally {
      remote.close();
    }
  });

  it('refuses a store that is already PostgreSQL, and says why vectors were left when the database has no pgvector', async () => {
    const url = await cluster.database({ vector: false });
    const r = await local.migrateTo(url);
    expect(r.vectors).toBe(0);
    expect(r.vectors_skipped).toMatch(/CREATE EXTENSION vector/);
    const remote = await openEngine({ dataDir: join(dir, 'pg-only'), config: { store: { url } } });
    try {
      await expect(remote.migrateTo(url)).rejects.toThrow(/already on/);
    } finally {
      remote.close();
    }
  });
});
