// A team server's database role owns nothing (issue 50, item 8): the schema's owner migrates it and
// gives the server's role its rights (kb grant-server); from the server's connection row-level
// security cannot be switched off, and yet everything a server does — ingest, vectors and their HNSW
// index for a new model, a reindex that drops the old table, the planner's statistics, accounts —
// works. kb doctor says when a team's server connects as the owner.
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerGrantSchema } from '../src/shared/cli-output.js';
import { actingFor } from '../src/worker/acting.js';
import { openEngine } from '../src/worker/index.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PG_MIGRATIONS } from '../src/worker/store/postgres/migrations/index.js';
import { grantServerRole } from '../src/worker/store/postgres/server-role.js';
import { makeTestModel } from './support/make-test-model.js';
import { KB_ROLE, type PgCluster, postgresAvailable, SERVER_ROLE, startCluster } from './support/postgres.js';
import { corporaDir, kbAsync, kbServe, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();
const hasCorpora = corporaDir() !== null;

/** The error a statement ends with on `url`, or null if it ran. */
async function refusal(url: string, sql: string): Promise<string | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('SET search_path = kb, public');
    await c.query(sql);
    return null;
  } catch (e) {
    return (e as Error).message;
  } finally {
    await c.end();
  }
}

describe.skipIf(!available)("a team server's database role", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  it.skipIf(!hasCorpora)(
    'does all a server does — vectors, their index, a reindex, statistics, accounts — and cannot switch row-level security off',
    async () => {
      const url = await cluster.database();
      const server = cluster.asServer(url);
      const dir = await tempDir();
      const files: Record<string, string> = {};
      for (let i = 0; i < 30; i++) files[`notes/n${i}.md`] = `# Note ${i}\n\nThe heron came back to pond ${i}.\n`;
      await writeTree(dir, files);
      const owner = await openEngine({ dataDir: join(dir, 'owner'), config: { store: { url } } });
      const granted = await owner.grantServer(SERVER_ROLE);
      expect(granted).toMatchObject({ role: SERVER_ROLE, owner: KB_ROLE, schema: PG_MIGRATIONS.at(-1)!.version });
      await owner.addCollection(join(dir, 'notes'), { name: 'notes' });
      await owner.accounts.addUser('alice', 'reader');
      owner.close();

      const engine = await openEngine({
        dataDir: join(dir, 'server'),
        config: { store: { url: server }, embedding: { ann_min_rows: 10 } },
      });
      try {
        await engine.importModel(makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), 'all-MiniLM-L6-v2');
        await engine.ingest([join(dir, 'notes')]);
        await engine.syncVectors();
        const vectorTable = async (): Promise<{ t: string; owner: string; indexed: boolean }[]> => {
          const pool = await openPool(url);
          try {
            return (
              await pool.query<{ t: string; owner: string; indexed: boolean }>(
                `SELECT relname AS t, pg_get_userbyid(relowner) AS owner, to_regclass(relname || '_hnsw') IS NOT NULL AS indexed
                 FROM pg_class WHERE relname ~ '^chunks_[0-9a-f]{16}' AND relkind = 'r'`,
              )
            ).rows;
          } finally {
            await pool.end();
          }
        };
        const before = await vectorTable();
        // Made by the owner's function: the server does not own it.
        expect(before.map((v) => v.owner)).toEqual([KB_ROLE]);
        expect((await engine.search({ query: 'heron pond', mode: 'hybrid', top: 50 })).results).toHaveLength(30);
        await engine.reindex();
        const after = await vectorTable();
        expect(after).toHaveLength(1);
        expect(after[0]!.t).not.toBe(before[0]!.t);
        // A reindex indexes its table past ann_min_rows before it goes live — through the owner's function.
        expect(after[0]).toMatchObject({ owner: KB_ROLE, indexed: true });
        await actingFor('alice', async () => {
          expect((await engine.search({ query: 'heron', mode: 'lexical' })).results).toEqual([]);
        });
        await engine.accounts.grant('notes', 'alice');
        expect((await engine.accounts.listUsers()).map((u) => u.name)).toEqual(['alice']);

        const table = after[0]!.t;
        for (const sql of [
          'ALTER TABLE documents NO FORCE ROW LEVEL SECURITY',
          'ALTER TABLE chunks DISABLE ROW LEVEL SECURITY',
          `ALTER TABLE ${table} NO FORCE ROW LEVEL SECURITY`,
          'DROP POLICY documents_read ON documents',
          'CREATE POLICY open ON documents FOR SELECT USING (true)',
          'CREATE OR REPLACE FUNCTION kb_sees_all() RETURNS boolean LANGUAGE sql AS $$SELECT true$$',
          `DROP TABLE ${table}`,
          'CREATE TABLE kb.mine (x int)',
          'DELETE FROM audit',
          'UPDATE audit SET actor = $$someone$$',
          'TRUNCATE chunks',
        ])
          expect(await refusal(server, sql), sql).toMatch(/must be owner|permission denied|only table or database owner/);
        // The planner's statistics after a large batch: the owner's function, which the server may call.
        expect(await refusal(server, 'SELECT kb_analyze()')).toBeNull();
        // The owner's functions, for the server only: a role that may just connect cannot drop vectors.
        await cluster.admin('postgres', 'CREATE ROLE kb_outsider LOGIN');
        expect(await refusal(url.replace(`//${KB_ROLE}@`, '//kb_outsider@'), `SELECT kb.kb_drop_vectors('${table}')`)).toMatch(
          /permission denied/,
        );
        expect(await refusal(server, `SELECT kb_drop_vectors('documents')`)).toMatch(/not a vector table name/);
      } finally {
        engine.close();
      }
    },
  );

  it('is granted by the owner alone, to an ordinary role that owns nothing; kb doctor warns of a kb serve connected as the owner', async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    const owner = await openEngine({ dataDir: join(dir, 'owner'), config: { store: { url } } });
    try {
      await expect(owner.grantServer(KB_ROLE)).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/own nothing/),
      });
      await expect(owner.grantServer('nobody_here')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/CREATE ROLE nobody_here/),
      });
      await expect(owner.grantServer('postgres')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/superuser/),
      });
      // A team admin signed in through a server is not the database's owner.
      await owner.accounts.addUser('root', 'admin');
      await expect(actingFor('root', () => owner.grantServer(SERVER_ROLE))).rejects.toMatchObject({ code: 'FORBIDDEN' });
      const role = async (): Promise<unknown> => (await owner.doctor()).checks.find((c) => c.name === 'database role');
      // The owner's own commands connect as the owner, rightly; a kb serve doing so is warned of.
      expect(await role()).toMatchObject({ status: 'ok', detail: expect.stringMatching(/owner's commands/) });
      const served = await kbServe(join(dir, 'served'), 0, { KB_STORE: url }, true);
      try {
        expect(await role()).toMatchObject({
          status: 'warn',
          detail: expect.stringMatching(/a kb serve connects as kb_test.*grant-server/),
        });
      } finally {
        await served.stop();
      }
    } finally {
      owner.close();
    }
    // The CLI, as the README gives it; its JSON is the published contract.
    const env = { KB_DATA_DIR: join(dir, 'cli') };
    const out = await kbAsync(['grant-server', SERVER_ROLE, '--store', url, '--json'], { env });
    expect(out.code, out.stderr).toBe(0);
    expect(ServerGrantSchema.parse(JSON.parse(out.stdout))).toMatchObject({ role: SERVER_ROLE, owner: KB_ROLE });
    const asServer = await openEngine({ dataDir: join(dir, 'server'), config: { store: { url: cluster.asServer(url) } } });
    try {
      expect((await asServer.doctor()).checks.find((c) => c.name === 'database role')).toMatchObject({ status: 'ok' });
      await expect(asServer.grantServer(SERVER_ROLE)).rejects.toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/does not own/),
      });
    } finally {
      asServer.close();
    }
    // On one person's own index there is no database role to grant.
    const local = await kbAsync(['grant-server', SERVER_ROLE, '--json'], { env: { KB_DATA_DIR: join(dir, 'local') } });
    expect(local.code).not.toBe(0);
    expect(local.stdout + local.stderr).toMatch(/UNSUPPORTED|postgresql/);
  });

  it('does not migrate a schema it does not own: it says who does, and what to run', async () => {
    const url = await cluster.database();
    const pool = await openPool(url);
    try {
      await migratePg(pool, PG_MIGRATIONS.slice(0, -1));
      await grantServerRole(pool, SERVER_ROLE);
    } finally {
      await pool.end();
    }
    const dir = await tempDir();
    await expect(openEngine({ dataDir: join(dir, 'server'), config: { store: { url: cluster.asServer(url) } } })).rejects.toMatchObject({
      code: 'STORE_UNAVAILABLE',
      message: expect.stringMatching(new RegExp(`"${SERVER_ROLE}" does not own it \\("${KB_ROLE}" does\\).*grant-server ${SERVER_ROLE}`)),
    });
    // The owner's next run migrates; the server then opens.
    const owner = await openEngine({ dataDir: join(dir, 'owner'), config: { store: { url } } });
    owner.close();
    const server = await openEngine({ dataDir: join(dir, 'server'), config: { store: { url: cluster.asServer(url) } } });
    server.close();
  });
});
