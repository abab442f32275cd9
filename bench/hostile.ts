// `npm run bench -- hostile` (issue 50): thousands of generated pathological requests (bench/
// hostile-inputs.ts) thrown at kb serve over the latency bench's 100,000-passage library, on SQLite
// (the owner's own server) and on PostgreSQL (a team server, the attacker one of its readers), while a
// steady searcher — another user — searches the ordinary mix, one search after another.
//
// Three runs of the steady searcher, the same searches each time: alone; beside a second client
// searching the ordinary mix flat out (a busy colleague); beside the attacker, sending one hostile
// request after another flat out. Goals: every hostile request answered or refused within 200 ms, and
// the steady searcher's p95 beside the attacker within 20 % of its p95 beside the busy colleague — a
// pathological request costs the others no more than an ordinary one. Its p95 alone is said too: two
// clients flat out on a 2-core machine slow a third whatever they send. On PostgreSQL, last, what
// ranking statistics counted within a reader's collections would cost beside the index-wide ones.
import { join } from 'node:path';
import pg from 'pg';
import type { SearchParams } from '../src/shared/wire.js';
import { tsquery } from '../src/worker/store/postgres/tsquery.js';
import { indexForm, WORD_TOKEN } from '../src/worker/words.js';
import { openEngine } from '../src/worker/index.js';
import { startCluster } from '../test/support/postgres.js';
import { type Client, connect } from '../test/support/ws-client.js';
import { type TextModel, trainModel } from './corpus.js';
import { type HostileCall, hostileCalls } from './hostile-inputs.js';
import { corpusIndex, queries } from './latency.js';
import { startServe, type Served } from './serve-client.js';
import { benchDir, type Check, corporaDir, freshDir, percentile, type BenchResult } from './util.js';

const HOSTILE = Number(process.env.KB_HOSTILE_CALLS ?? 2000);
const STEADY = 400;
const GOAL_MS = 200;

interface Outcome {
  kind: string;
  ms: number;
  refused: boolean;
  params: string;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The steady searcher: each search after the last, a short pause between; its times in ms, sorted. */
async function steadily(c: Client, qs: SearchParams[], stop: { done: boolean }): Promise<number[]> {
  const times: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    const r = await c.call('search', { top: 10, ...q });
    if (r.error) throw new Error(`the steady searcher's search failed: ${r.error.message}`);
    times.push(performance.now() - t);
    await sleep(20);
  }
  stop.done = true;
  return times.sort((a, b) => a - b);
}

/** One client sending `calls` one after another, round and round, until `stop`. */
async function flatOut(c: Client, calls: HostileCall[], stop: { done: boolean }, out: Outcome[] | null): Promise<void> {
  for (let i = 0; !stop.done || (out !== null && i < calls.length); i++) {
    const call = calls[i % calls.length]!;
    const t = performance.now();
    const r = await c.call(call.method, call.params);
    const ms = performance.now() - t;
    if (out && i < calls.length)
      out.push({ kind: call.kind, ms, refused: r.error !== undefined, params: JSON.stringify(call.params).slice(0, 100) });
  }
}

interface StoreRun {
  lines: string[];
  checks: Check[];
}

async function attack(
  label: string,
  steadyConn: () => Promise<Client>,
  attackerConn: () => Promise<Client>,
  model: TextModel,
): Promise<StoreRun> {
  const steady = await steadyConn();
  const attacker = await attackerConn();
  const words = model.vocabulary.filter((w) => w.length >= 4);
  const qs = queries(model, STEADY + 100);
  const ordinary: HostileCall[] = queries(model, 600)
    .slice(300)
    .map((q) => ({ kind: 'ordinary', method: 'search', params: { top: 10, ...q } }));
  const hostile = hostileCalls(HOSTILE, words);
  // Warm both connections' statements and caches.
  for (const q of qs.slice(0, 100)) await steady.call('search', { top: 10, ...q });
  for (const c of ordinary.slice(0, 50)) await attacker.call(c.method, c.params);
  const mine = qs.slice(100);

  const alone = await steadily(steady, mine, { done: false });
  let stop = { done: false };
  const [busy] = await Promise.all([steadily(steady, mine, stop), flatOut(attacker, ordinary, stop, null)]);
  stop = { done: false };
  const outcomes: Outcome[] = [];
  const [attacked] = await Promise.all([steadily(steady, mine, stop), flatOut(attacker, hostile, stop, outcomes)]);
  steady.close();
  attacker.close();

  const byKind = new Map<string, Outcome[]>();
  for (const o of outcomes) byKind.set(o.kind, [...(byKind.get(o.kind) ?? []), o]);
  const slow = outcomes.filter((o) => o.ms > GOAL_MS);
  const all = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const p95 = (xs: number[]): number => percentile(xs, 95);
  const lines = [
    `${label}: ${outcomes.length} hostile requests, ${outcomes.filter((o) => o.refused).length} refused; p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms, max ${all.at(-1)!.toFixed(1)} ms; ${slow.length} over ${GOAL_MS} ms`,
    ...[...byKind].map(([kind, os]) => {
      const ms = os.map((o) => o.ms).sort((a, b) => a - b);
      return `  ${kind}: ${os.length}, ${os.filter((o) => o.refused).length} refused, p50 ${percentile(ms, 50).toFixed(1)} ms, max ${ms.at(-1)!.toFixed(1)} ms`;
    }),
    ...slow
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 5)
      .map((o) => `  slowest: ${o.ms.toFixed(0)} ms ${o.kind} ${o.params}`),
    `  the steady searcher's p95: alone ${p95(alone).toFixed(1)} ms, beside a busy colleague ${p95(busy).toFixed(1)} ms, beside the attacker ${p95(attacked).toFixed(1)} ms`,
  ];
  return {
    lines,
    checks: [
      { what: `${label}: hostile requests over ${GOAL_MS} ms`, value: slow.length, target: 0, better: 'lower' },
      { what: `${label}: slowest hostile request`, value: all.at(-1)!, target: GOAL_MS, better: 'lower', unit: ' ms' },
      {
        what: `${label}: steady p95 beside the attacker ÷ beside a busy colleague`,
        value: p95(attacked) / p95(busy),
        target: 1.2,
        better: 'lower',
      },
    ],
  };
}

async function onSqlite(model: TextModel): Promise<StoreRun> {
  const { dataDir } = await corpusIndex(model);
  const served = await startServe(dataDir);
  try {
    const conn = (): Promise<Client> => connect(served.port, served.token);
    return await attack('SQLite', conn, conn, model);
  } finally {
    served.stop();
  }
}

async function onPostgres(model: TextModel): Promise<StoreRun> {
  const notes = join(benchDir('corpus100k'), 'notes');
  const work = await freshDir('hostile-pg');
  const cluster = await startCluster({ shared_buffers: '1GB' });
  let served: Served | null = null;
  try {
    const url = await cluster.database();
    const engine = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference', store: { url } } });
    const tokens = new Map<string, string>();
    const started = performance.now();
    try {
      await engine.addCollection(notes, { name: 'notes', many: true });
      for (let w = engine.backgroundWork(); w; w = engine.backgroundWork()) await w;
      for (const name of ['steady', 'mallory']) {
        tokens.set(name, (await engine.accounts.addUser(name, 'reader')).token);
        await engine.accounts.grant('notes', name);
      }
    } finally {
      engine.close();
    }
    const setUp = `PostgreSQL: the library ingested as one collection in ${((performance.now() - started) / 1000).toFixed(0)} s; the steady searcher and the attacker are two of its readers`;
    served = await startServe(join(work, 'data'), { KB_STORE: url, KB_CONFIG: join(work, 'none.yaml') });
    const port = served.port;
    const run = await attack(
      'PostgreSQL',
      () => connect(port, tokens.get('steady')!),
      () => connect(port, tokens.get('mallory')!),
      model,
    );
    return { lines: [setUp, ...run.lines, await statisticsCost(url, model)], checks: run.checks };
  } finally {
    served?.stop();
    cluster.stop();
  }
}

/**
 * What ranking statistics counted within a reader's collections would cost (docs/security.md): the
 * query words' document frequencies as a search reads them (word_stats, every collection), against
 * each counted under row-level security as the reader — for the ordinary mix, per query.
 */
async function statisticsCost(url: string, model: TextModel): Promise<string> {
  const c = new pg.Client({ connectionString: url, options: '-c search_path=kb,public -c kb.user=steady' });
  await c.connect();
  try {
    const global: number[] = [];
    const readable: number[] = [];
    for (const q of queries(model, 400).filter((x) => !x.query.startsWith('"'))) {
      const stems = [...new Set([...q.query.matchAll(WORD_TOKEN)].map((m) => indexForm(m[0]).stem))];
      let t = performance.now();
      await c.query('SELECT word, chunks FROM word_stats WHERE word = ANY ($1::text[])', [stems]);
      global.push(performance.now() - t);
      t = performance.now();
      for (const s of stems)
        await c.query('SELECT count(*) FROM chunks WHERE words @@ $1::tsquery', [tsquery({ either: [{ form: s, prefix: false }] })]);
      readable.push(performance.now() - t);
    }
    global.sort((a, b) => a - b);
    readable.sort((a, b) => a - b);
    const f = (xs: number[]): string =>
      `p50 ${percentile(xs, 50).toFixed(2)} ms, p95 ${percentile(xs, 95).toFixed(2)} ms, max ${xs.at(-1)!.toFixed(0)} ms`;
    return `  ranking statistics a query needs (${global.length} queries): from word_stats ${f(global)}; counted within a reader's collections ${f(readable)}`;
  } finally {
    await c.end();
  }
}

export async function benchHostile(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  // KB_HOSTILE_STORES=sqlite (or postgres) measures one store.
  const stores = (process.env.KB_HOSTILE_STORES ?? 'sqlite,postgres').split(',');
  const runs = [
    ...(stores.includes('sqlite') ? [await onSqlite(model)] : []),
    ...(stores.includes('postgres') ? [await onPostgres(model)] : []),
  ];
  return {
    name: 'hostile requests',
    lines: [
      `${HOSTILE} generated hostile requests per store (KB_HOSTILE_CALLS), ${STEADY} steady searches per run`,
      ...runs.flatMap((r) => r.lines),
    ],
    checks: runs.flatMap((r) => r.checks),
  };
}
