// Who may read what, enforced by PostgreSQL itself (row-level security, migration 8): a query through
// kb's own connection, set to user A, sees none of B's rows — documents, passages, vectors, originals
// and what hangs off them — whatever kb's own filters do; a session naming nobody sees nothing; an
// editor writes only into the collections granted to them.
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actingFor } from '../src/worker/acting.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { corporaDir, writeTree } from './helpers.js';

const available = postgresAvailable();
const withVectors = corporaDir() !== null;

describe.skipIf(!available)('row-level security on PostgreSQL', () => {
  let cluster: PgCluster;
  let url: string;
  let dir: string;
  let engine: Engine;
  let db: pg.Client;

  /** Rows of `sql` as kb's own role sees them for `user` ('' names nobody). */
  async function as(user: string, sql: string): Promise<Record<string, unknown>[]> {
    await db.query('SELECT set_config($1, $2, false)', ['kb.user', user]);
    return (await db.query(sql)).rows as Record<string, unknown>[];
  }
  const paths = async (user: string): Promise<string[]> =>
    (await as(user, 'SELECT path FROM documents ORDER BY path')).map((r) => String(r.path).slice(dir.length));

  beforeAll(async () => {
    cluster = await startCluster();
    url = await cluster.database();
    dir = await mkdtemp(join(tmpdir(), 'kb-rls-'));
    await writeTree(dir, {
      'team/plan.md': '# Plan\n\nShip the heron release on Friday with releaseTrain42.\n',
      'team/notes.txt': 'The heron release needs a changelog.',
      'private/diary.md': '# Diary\n\nThe heron came back to the pond; heronWatcher2 saw it.\n',
      'loose/todo.md': '# Todo\n\nBuy a heron feeder.\n',
    });
    engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url } } });
    if (withVectors) await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
    await engine.addCollection(join(dir, 'team'), { name: 'team' });
    await engine.addCollection(join(dir, 'private'), { name: 'private' });
    await engine.ingest([join(dir, 'loose')]);
    await engine.accounts.addUser('alice', 'reader');
    await engine.accounts.addUser('bob', 'reader');
    await engine.accounts.addUser('carol', 'editor');
    await engine.accounts.addUser('dan', 'admin');
    await engine.accounts.grant('team', 'alice');
    await engine.accounts.grant('team', 'carol');
    await engine.accounts.grant('private', 'bob');
    db = new pg.Client({ connectionString: url, options: '-c search_path=kb' });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    engine?.close();
    cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows each user only the documents of the collections granted to them', async () => {
    expect(await paths('alice')).toEqual(['/team/notes.txt', '/team/plan.md']);
    expect(await paths('bob')).toEqual(['/private/diary.md']);
    // Admins, and the database's own credentials, see everything; a session naming nobody, nothing.
    expect(await paths('dan')).toEqual(['/loose/todo.md', '/private/diary.md', '/team/notes.txt', '/team/plan.md']);
    expect(await paths('@admin')).toHaveLength(4);
    expect(await paths('')).toEqual([]);
    expect(await paths('mallory')).toEqual([]);
    // kb's own role owns the tables: FORCE makes it obey the policies anyway.
    const forced = await as(
      '@admin',
      "SELECT relname FROM pg_class WHERE relforcerowsecurity AND relname IN ('documents', 'chunks', 'chunk_insides', 'originals', 'blobs', 'blob_parts', 'document_tags')",
    );
    expect(forced).toHaveLength(7);
  });

  it('keeps passages, vectors, originals and their bytes with their documents', async () => {
    const docsOf = async (user: string, sql: string): Promise<string[]> =>
      [...new Set((await as(user, sql)).map((r) => String(r.path).slice(dir.length)))].sort();
    const viaDocs = (table: string, key = 'doc_id'): string => `SELECT d.path FROM ${table} x JOIN documents d ON d.id = x.${key}`;
    // Joined to documents as @admin sees them, so a row leaking without its document would show.
    const allDocs = async (user: string, table: string, key?: string): Promise<string[]> => {
      const ids = (await as(user, `SELECT ${key ?? 'doc_id'} AS id FROM ${table}`)).map((r) => String(r.id));
      await db.query('SELECT set_config($1, $2, false)', ['kb.user', '@admin']);
      const r = await db.query<{ path: string }>('SELECT path FROM documents WHERE id = ANY ($1::text[])', [ids]);
      return [...new Set(r.rows.map((x) => x.path.slice(dir.length)))].sort();
    };
    expect(await allDocs('alice', 'chunks')).toEqual(['/team/notes.txt', '/team/plan.md']);
    expect(await allDocs('bob', 'chunks')).toEqual(['/private/diary.md']);
    expect(await allDocs('alice', 'originals')).toEqual(['/team/notes.txt', '/team/plan.md']);
    expect(await as('', 'SELECT * FROM chunks')).toEqual([]);
    // An original's bytes: only while a visible document holds them.
    const blobsOf = async (user: string): Promise<number> => (await as(user, 'SELECT sha256 FROM blob_parts')).length;
    expect(await blobsOf('alice')).toBe(2);
    expect(await blobsOf('bob')).toBe(1);
    expect(await blobsOf('')).toBe(0);
    if (withVectors) {
      const table = String((await as('@admin', "SELECT relname FROM pg_class WHERE relname ~ '^chunks_[0-9a-f]{16}$'"))[0]!.relname);
      const vectorDocs = await allDocs('bob', table);
      expect(vectorDocs).toEqual(['/private/diary.md']);
      expect(await as('', `SELECT chunk_id FROM ${table}`)).toEqual([]);
    }
    expect(await docsOf('alice', viaDocs('chunks'))).toEqual(['/team/notes.txt', '/team/plan.md']);
    // What substring search reads is visible with its passage (issue 50: it once read every passage).
    const insides = async (user: string): Promise<string[]> =>
      (await as(user, 'SELECT inside FROM chunk_insides ORDER BY inside')).map((r) => String(r.inside));
    expect(await insides('alice')).toEqual(['releasetrain42']);
    expect(await insides('bob')).toEqual(['heronwatcher2']);
    expect(await insides('')).toEqual([]);
    expect((await engine.search({ query: 'watcher', mode: 'lexical' })).results.map((h) => h.citation.path.slice(dir.length))).toEqual([
      '/private/diary.md',
    ]);
  });

  it('fills in what substring search reads for the passages an older kb wrote, when the store opens (issue 50)', async () => {
    await as('@admin', 'DELETE FROM chunk_insides');
    await as('@admin', "INSERT INTO meta (key, value) SELECT 'insides_from', max(rowid)::text FROM chunks");
    const again = await openEngine({ dataDir: join(dir, 'data-again'), config: { store: { url } } });
    try {
      expect((await as('@admin', 'SELECT inside FROM chunk_insides ORDER BY inside')).map((r) => r.inside)).toEqual([
        'heronwatcher2',
        'releasetrain42',
      ]);
      expect(await as('@admin', "SELECT * FROM meta WHERE key = 'insides_from'")).toEqual([]);
      expect((await again.search({ query: 'train42', mode: 'lexical' })).results).toHaveLength(1);
    } finally {
      again.close();
    }
  });

  it('lets an editor write only into the collections granted to them, and a reader nowhere', async () => {
    const insert = (id: string, path: string): string =>
      `INSERT INTO documents (id, path, title, type, content_hash, size, mtime, parser_version, status, original, added_at, updated_at)
       VALUES ('${id}', '${dir}${path}', '', 'markdown', 'h', 1, 1, 1, 'indexed', 'reference', 1, 1)`;
    await expect(as('alice', insert('x1', '/team/new.md'))).rejects.toThrow(/row-level security/);
    await expect(as('carol', insert('x2', '/private/new.md'))).rejects.toThrow(/row-level security/);
    await as('carol', insert('x3', '/team/new.md'));
    expect(await paths('alice')).toContain('/team/new.md');
    await expect(as('carol', "DELETE FROM documents WHERE path LIKE '%/private/%' RETURNING id")).resolves.toEqual([]);
    expect(await paths('bob')).toEqual(['/private/diary.md']);
    await as('carol', "DELETE FROM documents WHERE id = 'x3'");
  });

  it('searches words through the index under the policies, once the administrator marks the match leakproof', async () => {
    const plan = (await as('alice', "EXPLAIN SELECT rowid FROM chunks WHERE words @@ 'heron'::tsquery"))
      .map((r) => String(r['QUERY PLAN']))
      .join('\n');
    expect(plan).toMatch(/Index Scan on chunks_words/);
    expect((await engine.doctor()).checks.find((c) => c.name === 'word index')).toMatchObject({ status: 'ok' });
    // A database where that step was skipped: kb still searches, and says what the administrator runs.
    const bare = await openEngine({ dataDir: join(dir, 'bare'), config: { store: { url: await cluster.database({ leakproof: false }) } } });
    try {
      expect((await bare.doctor()).checks.find((c) => c.name === 'word index')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/ALTER FUNCTION ts_match_vq\(tsvector, tsquery\) LEAKPROOF/),
      });
    } finally {
      bare.close();
    }
  });

  it('moves documents into a collection made over them later, and out of sight of those not granted it', async () => {
    expect(await paths('alice')).not.toContain('/loose/todo.md');
    await engine.addCollection(join(dir, 'loose'), { name: 'loose' });
    await engine.accounts.grant('loose', '@all');
    expect(await paths('alice')).toContain('/loose/todo.md');
    expect(await paths('bob')).toContain('/loose/todo.md');
    const chunks = await as('bob', "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path LIKE '%/loose/%'");
    expect(chunks.length).toBeGreaterThan(0);
    await engine.accounts.revoke('loose', '@all');
    expect(await paths('bob')).toEqual(['/private/diary.md']);
  });

  it("never lets one user's Remove take the stored copy another collection's document keeps (issue 49)", async () => {
    const same = '# Same\n\nThe same bytes, kept in two collections.\n';
    await writeTree(dir, { 'team/same.md': same, 'private/same.md': same });
    await engine.ingest([join(dir, 'team/same.md'), join(dir, 'private/same.md')]);
    const kept = (await engine.list()).find((d) => d.path === join(dir, 'private/same.md'))!;
    // Carol edits the team's collection and cannot see the private one, whose document keeps the same bytes.
    await actingFor('carol', () => engine.remove(join(dir, 'team/same.md')));
    rmSync(join(dir, 'private/same.md'));
    rmSync(join(dir, 'data', 'blobs'), { recursive: true, force: true });
    const src = await engine.source(kept.doc_id);
    expect(readFileSync(src.file, 'utf8')).toBe(same);
    await engine.remove(join(dir, 'private/same.md'));
    // Bytes nobody else keeps go from the database when she removes their document (the engine's credentials).
    await writeTree(dir, { 'team/unique.md': '# Unique\n\nBytes only the team keeps.\n' });
    await engine.ingest([join(dir, 'team/unique.md')]);
    const blobs = async (): Promise<number> => Number((await as('dan', 'SELECT count(*) AS n FROM blobs'))[0]!.n);
    const before = await blobs();
    await actingFor('carol', () => engine.remove(join(dir, 'team/unique.md')));
    expect(await blobs()).toBe(before - 1);
  });
});
