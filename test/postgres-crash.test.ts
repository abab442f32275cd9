// Crash safety on the PostgreSQL store: `kb --store URL ingest` killed with SIGKILL thirty times at
// random moments. After every kill no document is half written (an indexed text document has its
// chunks), the word statistics the triggers keep agree with the chunks, and a final run completes
// the index to exactly what an uninterrupted run builds.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mixedCorpus } from './support/crash-harness.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { kb, tempDir } from './helpers.js';

const available = postgresAvailable();
const KB = resolve(import.meta.dirname, '../bin/kb.js');
const KILLS = 30;

async function query<R extends pg.QueryResultRow>(url: string, sql: string): Promise<R[]> {
  // As the database's own credentials (kb.user @admin): row-level security shows a session naming nobody nothing.
  const c = new pg.Client({ connectionString: url, options: '-c search_path=kb,public -c kb.user=@admin' });
  await c.connect();
  try {
    return (await c.query<R>(sql)).rows;
  } finally {
    await c.end();
  }
}

/** What must hold after any kill: whole documents, and statistics that agree with the chunks. */
async function consistent(url: string): Promise<void> {
  const [half] = await query<{ n: number }>(
    url,
    `SELECT count(*) AS n FROM documents d WHERE d.status = 'indexed' AND d.type IN ('markdown', 'code', 'note')
     AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)`,
  );
  expect(Number(half!.n), 'text documents without their chunks').toBe(0);
  const [totals] = await query<{ kept: number; counted: number }>(
    url,
    'SELECT (SELECT chunks FROM chunk_totals) AS kept, (SELECT count(*) FROM chunks) AS counted',
  );
  expect(Number(totals!.kept)).toBe(Number(totals!.counted));
  const [drift] = await query<{ n: number }>(
    url,
    `SELECT count(*) AS n FROM (SELECT u.lexeme, count(*) AS df FROM chunks, unnest(chunks.words) AS u GROUP BY u.lexeme) x
     FULL JOIN word_stats w ON w.word = x.lexeme WHERE x.df IS DISTINCT FROM w.chunks`,
  );
  expect(Number(drift!.n), 'words whose document frequency disagrees with the chunks').toBe(0);
}

async function fingerprint(url: string): Promise<{ documents: string[]; chunks: string[] }> {
  const documents = (
    await query<{ d: string }>(url, "SELECT path || ' ' || content_hash || ' ' || status AS d FROM documents ORDER BY 1")
  ).map((r) => r.d);
  const chunks = (await query<{ id: string }>(url, 'SELECT id FROM chunks ORDER BY id')).map((r) => r.id);
  return { documents, chunks };
}

describe.skipIf(!available)('kb on PostgreSQL, killed mid-ingest', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  it(`keeps every document whole through ${KILLS} kills, and ends as an uninterrupted run does`, { timeout: 300_000 }, async () => {
    const dir = await tempDir();
    const corpus = join(dir, 'corpus');
    await mixedCorpus(corpus, 400, null);
    const reference = await cluster.database();
    expect(kb(['--store', reference, '--data-dir', join(dir, 'ref'), 'ingest', corpus]).code).toBe(0);

    const url = await cluster.database();
    let seed = 11;
    const rnd = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647;
    let killedMidway = 0;
    for (let round = 0; round < KILLS; round++) {
      // Every file read and written again each round (--force): each kill lands in the middle of replacing documents.
      const child = spawn(process.execPath, [KB, '--store', url, '--data-dir', join(dir, 'data'), 'ingest', '--force', corpus], {
        stdio: 'ignore',
      });
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      const wait = 400 + rnd() * 1600;
      const code = await Promise.race([exited, new Promise<'kill'>((r) => setTimeout(() => r('kill'), wait))]);
      if (code === 'kill') {
        child.kill('SIGKILL');
        await exited;
        killedMidway++;
      }
      await consistent(url);
    }
    expect(killedMidway).toBeGreaterThan(KILLS / 2);
    expect(kb(['--store', url, '--data-dir', join(dir, 'data'), 'ingest', corpus]).code).toBe(0);
    await consistent(url);
    expect(await fingerprint(url)).toEqual(await fingerprint(reference));
  });
});
