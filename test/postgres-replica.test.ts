// store.read_url: searches read a streaming-replication hot standby, writes go to the primary. A
// primary and a standby on loopback (pg_basebackup -R): with the standby's replay paused, what was
// just written to the primary is not found yet — the search asked the standby — and once it replays,
// it is, by words and by meaning.
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type PgCluster, type PgStandby, postgresAvailable, startCluster } from './support/postgres.js';
import { corporaDir, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();

async function onStandby(standby: PgStandby, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${standby.port}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe.skipIf(!available)('kb on a primary and a hot standby', () => {
  let cluster: PgCluster;
  let standby: PgStandby;
  beforeAll(async () => {
    cluster = await startCluster();
    standby = await cluster.standby();
  });
  afterAll(() => {
    standby?.stop();
    cluster?.stop();
  });

  it('searches the standby and writes to the primary', async () => {
    const url = await cluster.database();
    const readUrl = standby.urlOf(url);
    await standby.caughtUp(); // the database itself, created on the primary, reaches the standby
    const dir = await tempDir();
    await writeTree(dir, {
      'notes/otters.md': '# Otters\n\nSea otters hold hands while they sleep.\n',
      'later/zeppelin.md': '# Zeppelins\n\nThe zeppelin hangar lease was renewed.\n',
    });
    const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url, read_url: readUrl } } });
    try {
      const withModel = corporaDir() !== null;
      if (withModel) await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
      await engine.ingest([join(dir, 'notes')]);
      await standby.caughtUp();
      expect((await engine.search({ query: 'otters', mode: 'lexical' })).results[0]?.citation.path).toBe(join(dir, 'notes/otters.md'));

      // The standby stops replaying: a document written to the primary is not searchable yet.
      await onStandby(standby, 'SELECT pg_wal_replay_pause()');
      const s = await engine.ingest([join(dir, 'later')]);
      expect(s).toMatchObject({ added: 1, failed: 0 });
      expect((await engine.search({ query: 'zeppelin', mode: 'lexical' })).results).toHaveLength(0);
      expect((await engine.list()).map((d) => d.path)).toContain(join(dir, 'later/zeppelin.md')); // the Library reads the primary

      await onStandby(standby, 'SELECT pg_wal_replay_resume()');
      await standby.caughtUp();
      const found = await engine.search({ query: 'zeppelin', mode: 'lexical' });
      expect(found.results[0]?.citation.path).toBe(join(dir, 'later/zeppelin.md'));
      if (withModel) {
        const byMeaning = await engine.search({ query: 'zeppelin hangar', mode: 'vector', top: 5 });
        expect(byMeaning.vector).toEqual({ status: 'ok' });
        expect(byMeaning.results.map((h) => h.citation.path)).toContain(join(dir, 'later/zeppelin.md'));
      }
    } finally {
      engine.close();
    }
  });

  it('says which URL is wrong when the standby cannot be reached', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    await expect(
      openEngine({ dataDir: join(dir, 'data'), config: { store: { url, read_url: 'postgresql://kb_test@127.0.0.1:1/nowhere' } } }),
    ).rejects.toThrow(/127\.0\.0\.1:1/);
  });
});
