// The engine on the PostgreSQL store, end to end on a real server: files ingested, found, cited,
// read back, listed, removed; `kb --store URL …` does the same from the command line; what kb says
// when the server cannot be used.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/index.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import WebSocket from 'ws';
import { heard, kb, kbServe, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();

/** One RPC call to a running kb serve, over its WebSocket, as the app makes it. */
async function rpc(port: number, token: string, method: string, params: unknown): Promise<{ result?: unknown; error?: unknown }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { origin: `http://127.0.0.1:${port}` });
  try {
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    ws.send(JSON.stringify({ type: 'request', id: 1, method, params }));
    for (;;) {
      const m = JSON.parse(String(await new Promise((r) => ws.once('message', r)))) as { id?: number; type: string };
      if (m.id === 1 && m.type !== 'event') return m as { result?: unknown; error?: unknown };
    }
  } finally {
    ws.close();
  }
}

const NOTES = {
  'notes/rollback.md': '# Rolling back a deploy\n\nWhen a deploy goes wrong, run the rollback script and page the on-call engineer.\n',
  'notes/otters.md': '# Otters\n\nSea otters hold hands while they sleep so they do not drift apart.\n\n## Diet\n\nThey eat sea urchins.\n',
  'notes/budget-2024.txt': 'Quarterly budget review: travel costs rose, the zeppelin hangar lease was renewed.\n',
  'notes/tokyo.md': '# 旅行\n\n東京の天気は晴れでした。exponentialBackoff retries the upload.\n',
};

describe.skipIf(!available)('kb on PostgreSQL', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  it('ingests, finds, cites, reads back, lists and removes documents', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    await writeTree(dir, NOTES);
    const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url } } });
    try {
      const s = await engine.ingest([join(dir, 'notes')]);
      expect(s).toMatchObject({ added: 4, failed: 0 });

      const r = await engine.search({ query: 'otters sleep', mode: 'lexical', top: 5 });
      expect(r.results[0]?.citation.path).toBe(join(dir, 'notes/otters.md'));
      expect(r.results[0]?.snippet_highlights.length).toBeGreaterThan(0);
      expect(r.results[0]?.matched_terms).toEqual(expect.arrayContaining(['otters', 'sleep']));
      // A hybrid search says why it searched by words alone.
      const h = await engine.search({ query: 'otters', mode: 'hybrid', top: 5 });
      expect(h.results.length).toBeGreaterThan(0);

      // A phrase, a word being typed, a typo, a file's name.
      expect((await engine.search({ query: '"hangar lease"', mode: 'lexical', top: 5 })).results[0]?.citation.path).toBe(
        join(dir, 'notes/budget-2024.txt'),
      );
      expect((await engine.search({ query: 'rollb', mode: 'lexical', top: 5, prefix: true })).results[0]?.citation.path).toBe(
        join(dir, 'notes/rollback.md'),
      );
      const typo = await engine.search({ query: 'zepelin', mode: 'lexical', top: 5 });
      expect(typo.corrected?.query).toBe('zeppelin');
      expect((await engine.search({ query: 'budget-2024.txt', mode: 'lexical', top: 5 })).results[0]?.doc_id).toBeTruthy();

      // A raw expression is PostgreSQL's tsquery, its words stemmed as the index holds them; one that
      // does not parse is a clear QUERY_INVALID.
      const raw = await engine.search({ query: "'otters & sleeping'", mode: 'lexical', top: 5 });
      expect(raw.results.map((h) => h.citation.path)).toEqual([join(dir, 'notes/otters.md')]);
      await expect(engine.search({ query: "'otters & | sleep'", mode: 'lexical', top: 5 })).rejects.toMatchObject({
        code: 'QUERY_INVALID',
      });
      // Text without spaces, and letters inside an identifier, are found as substrings.
      expect((await engine.search({ query: '東京', mode: 'lexical', top: 5 })).results[0]?.citation.path).toBe(join(dir, 'notes/tokyo.md'));
      expect((await engine.search({ query: 'backoff', mode: 'lexical', top: 5 })).results[0]?.citation.path).toBe(
        join(dir, 'notes/tokyo.md'),
      );

      const cited = r.results[0]!.citation.uri;
      expect((await engine.get(cited)).text).toContain('Sea otters hold hands');
      const list = await engine.list();
      expect(list.map((d) => d.path).sort()).toEqual(
        Object.keys(NOTES)
          .map((p) => join(dir, p))
          .sort(),
      );
      const status = await engine.status();
      expect(status.chunks).toBeGreaterThanOrEqual(3);
      expect(status.store).toEqual({ kind: 'postgres', where: url });

      // Ingesting the same folder again changes nothing; an edited file is read again.
      expect(await engine.ingest([join(dir, 'notes')])).toMatchObject({ unchanged: 4 });
      writeFileSync(join(dir, 'notes/otters.md'), '# Otters\n\nRiver otters slide down mud banks.\n');
      expect(await engine.ingest([join(dir, 'notes')])).toMatchObject({ updated: 1 });
      expect((await engine.search({ query: 'mud banks', mode: 'lexical', top: 5 })).results).toHaveLength(1);
      expect((await engine.search({ query: 'urchins', mode: 'lexical', top: 5 })).results).toHaveLength(0);

      await engine.remove(join(dir, 'notes/rollback.md'));
      expect((await engine.search({ query: 'rollback script', mode: 'lexical', top: 5 })).results).toHaveLength(0);
      const doctor = await engine.doctor();
      expect(doctor.checks.find((c) => c.name === 'database')?.detail).toMatch(/PostgreSQL at postgresql:\/\/kb_test@127\.0\.0\.1/);
      expect(doctor.checks.find((c) => c.name === 'pgvector')).toMatchObject({ status: 'ok' });
    } finally {
      engine.close();
    }
  });

  it('keeps the originals in the database: another machine opens a document whose file is gone, and gc frees what no document holds', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    await writeTree(dir, { 'notes/otters.md': NOTES['notes/otters.md'], 'notes/tokyo.md': NOTES['notes/tokyo.md'] });
    const here = await openEngine({ dataDir: join(dir, 'here'), config: { store: { url } } });
    const there = await openEngine({ dataDir: join(dir, 'there'), config: { store: { url } } });
    try {
      await here.ingest([join(dir, 'notes')]);
      const otters = (await here.list()).find((d) => d.path.endsWith('otters.md'))!;
      rmSync(join(dir, 'notes/otters.md'));
      rmSync(join(dir, 'here', 'blobs'), { recursive: true, force: true });
      // A data dir that never saw the file: the bytes come from the database.
      const src = await there.source(otters.doc_id);
      expect(src.file.startsWith(join(dir, 'there'))).toBe(true);
      expect(readFileSync(src.file, 'utf8')).toBe(NOTES['notes/otters.md']);
      expect((await there.get(`${join(dir, 'notes/otters.md')}#L3-L3`)).text).toContain('Sea otters hold hands');
      // Removed, its original is no one's: Remove deletes it from the database at once, and gc the
      // copy another machine fetched.
      await here.remove(join(dir, 'notes/otters.md'));
      await expect(there.source(otters.doc_id)).rejects.toThrow(/no indexed document/);
      const fetched = readdirSync(join(dir, 'there', 'blobs'), { recursive: true }).length;
      expect(fetched).toBeGreaterThan(0);
      expect((await there.gc()).removed_blobs).toBe(0);
      expect(readdirSync(join(dir, 'there', 'blobs'), { recursive: true })).toEqual([]);
    } finally {
      here.close();
      there.close();
    }
  });

  it('works from the command line with --store, and says so when the server is down', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    await writeTree(dir, NOTES);
    const data = join(dir, 'data');
    const ingest = kb(['--store', url, '--data-dir', data, '--json', 'ingest', join(dir, 'notes')]);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(kb(['--store', url, '--data-dir', data, 'status']).stdout).toMatch(
      /documents?, \d+ chunks? in the PostgreSQL index at postgresql:\/\/kb_test@127\.0\.0\.1/,
    );
    const found = kb(['--store', url, '--data-dir', data, '--json', 'search', 'zeppelin hangar']);
    expect(JSON.parse(found.stdout).results[0].citation.path).toBe(join(dir, 'notes/budget-2024.txt'));
    // Another process (KB_STORE, no flag) sees the same index.
    const ls = kb(['--data-dir', join(dir, 'other'), '--json', 'ls'], { env: { KB_STORE: url } });
    expect(JSON.parse(ls.stdout).documents).toHaveLength(4);

    const down = kb(['--store', url.replace(`:${cluster.port}/`, ':1/'), '--data-dir', data, 'search', 'otters']);
    expect(down.code).not.toBe(0);
    expect(down.stderr).toMatch(/cannot reach the PostgreSQL server at postgresql:\/\/kb_test@127\.0\.0\.1:1\/.*is it running/);
    const bad = kb(['--store', 'mysql://x', '--data-dir', data, 'search', 'otters']);
    expect(bad.stderr).toMatch(/postgresql:\/\/ URL/);
  });

  it('serves one database from two kb serve processes: what one adds, the other finds, and its windows hear of it', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    await writeTree(dir, NOTES);
    const a = await kbServe(join(dir, 'a'), 0, { KB_STORE: url });
    const b = await kbServe(join(dir, 'b'), 0, { KB_STORE: url });
    // A window open on b hears that a changed the index (LISTEN/NOTIFY), and asks again.
    const window = await heard(b.port, b.token, 'changed');
    const added = await rpc(a.port, a.token, 'ingest', { paths: [join(dir, 'notes')] });
    expect(added.error).toBeUndefined();
    expect(await window.event).toEqual({});
    window.close();
    const found = await rpc(b.port, b.token, 'search', { query: 'sea urchins', mode: 'lexical', top: 5 });
    expect((found.result as { results: { citation: { path: string } }[] }).results[0]?.citation.path).toBe(join(dir, 'notes/otters.md'));
    await a.stop();
    await b.stop();
  });
});
