// `npm run bench -- ranking --store postgres`: kb's ranking on the PostgreSQL store, on every SMART
// collection (Cranfield, CACM), beside kb on SQLite, the harness's reference BM25, and the design kb
// started from — a tsvector of PostgreSQL's english configuration ranked by ts_rank_cd, its words
// ANDed by plainto_tsquery as written, and ORed. The server is a throwaway cluster on loopback
// (test/support/postgres.ts); kb connects to it as an ordinary role.
import { join } from 'node:path';
import pg from 'pg';
import { openEngine } from '../src/worker/index.js';
import { startCluster } from '../test/support/postgres.js';
import { type Prepared, prepare, runKb, type Scores, scoreRuns } from './ranking.js';
import { smartCollections } from './smart.js';
import { benchDir, corporaDir, type BenchResult, type Check } from './util.js';

const CONFIG = { store_originals: 'reference', ocr: { enabled: false }, audio: { enabled: false } } as const;

/** The seed's design: the records in a table of its own, english tsvectors, ts_rank_cd. */
async function seedRuns(url: string, p: Prepared, queries: string[]): Promise<{ and: string[][]; or: string[][] }> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query('CREATE SCHEMA IF NOT EXISTS seed');
    await c.query('DROP TABLE IF EXISTS seed.docs');
    await c.query('CREATE TABLE seed.docs (id text PRIMARY KEY, tsv tsvector NOT NULL)');
    for (const d of p.c.docs) await c.query("INSERT INTO seed.docs VALUES ($1, to_tsvector('english', $2))", [d.id, d.text]);
    await c.query('CREATE INDEX ON seed.docs USING gin (tsv)');
    const run = async (q: string, join: '&' | '|'): Promise<string[]> => {
      const tsq = join === '&' ? "plainto_tsquery('english', $1)" : "replace(plainto_tsquery('english', $1)::text, ' & ', ' | ')::tsquery";
      const r = await c.query<{ id: string }>(
        `SELECT id FROM seed.docs, (SELECT ${tsq} AS q) AS x WHERE tsv @@ q ORDER BY ts_rank_cd(tsv, q) DESC, id LIMIT 100`,
        [q],
      );
      return r.rows.map((x) => x.id);
    };
    const and: string[][] = [];
    const or: string[][] = [];
    for (const q of queries) {
      and.push(await run(q, '&'));
      or.push(await run(q, '|'));
    }
    return { and, or };
  } finally {
    await c.end();
  }
}

const fmt = (s: Scores): string =>
  `nDCG@10 ${s.ndcg10.toFixed(4)}  MAP ${s.map.toFixed(4)}  P@10 ${s.p10.toFixed(4)}  R@100 ${s.r100.toFixed(4)}`;

export async function benchRankingPostgres(): Promise<BenchResult> {
  const lines: string[] = [];
  const checks: Check[] = [];
  const cluster = await startCluster();
  try {
    for (const { name, dir } of smartCollections(join(corporaDir(), 'ir'))) {
      const p = await prepare(name, dir);
      const url = await cluster.database();
      const pgData = benchDir(`ranking-${name}-pg`);
      const engine = await openEngine({ dataDir: pgData, config: { ...CONFIG, store: { url } } });
      const t = performance.now();
      await engine.ingest([join(benchDir(`ranking-${name}`), 'docs')]);
      const ingestS = (performance.now() - t) / 1000;
      engine.close();
      lines.push(
        `${name}: ${p.c.docs.length} documents, ${p.c.queries.length} queries; ingested into PostgreSQL in ${ingestS.toFixed(1)} s`,
      );
      for (const set of p.sets) {
        const reference = scoreRuns(
          set.queries.map((q) => p.ref.search(q, 100)),
          p.c,
        );
        const onSqlite = scoreRuns(await runKb(p, set.queries, {}), p.c);
        const t0 = performance.now();
        const onPg = scoreRuns(await runKb({ dataDir: pgData }, set.queries, { store: { url } }), p.c);
        const ms = (performance.now() - t0) / set.queries.length;
        const seed = await seedRuns(url, p, set.queries);
        const seedAnd = scoreRuns(seed.and, p.c);
        const seedOr = scoreRuns(seed.or, p.c);
        lines.push(`  ${set.label} queries`);
        lines.push(`    ${'reference BM25'.padEnd(30)} ${fmt(reference)}`);
        lines.push(`    ${'kb on SQLite'.padEnd(30)} ${fmt(onSqlite)}`);
        lines.push(`    ${'kb on PostgreSQL'.padEnd(30)} ${fmt(onPg)}  (${ms.toFixed(1)} ms a query, engine opened per run)`);
        lines.push(`    ${'seed: plainto_tsquery (AND)'.padEnd(30)} ${fmt(seedAnd)}`);
        lines.push(`    ${'seed: the same words ORed'.padEnd(30)} ${fmt(seedOr)}`);
        checks.push({
          what: `${name} ${set.label}: kb on PostgreSQL nDCG@10 / kb on SQLite`,
          value: onPg.ndcg10 / onSqlite.ndcg10,
          target: 0.97,
          better: 'higher',
        });
        const factor = set.label === 'full' ? 1.05 : 1;
        checks.push({
          what: `${name} ${set.label}: kb on PostgreSQL nDCG@10 / reference BM25`,
          value: onPg.ndcg10 / reference.ndcg10,
          target: factor,
          better: 'higher',
        });
      }
    }
  } finally {
    cluster.stop();
  }
  return { name: 'ranking (PostgreSQL)', lines, checks };
}
