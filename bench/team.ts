// `npm run bench -- team` (issue 35): one kb server for a team, on PostgreSQL, under a team's load.
// The latency bench's 100,000-passage library as 66 collections (ten readable by everyone, each reader
// granted five more), generated vectors for search by meaning (bench/latency-postgres.ts), and a kb
// serve on loopback. Then for five minutes: 50 searchers, each its own user over its own WebSocket,
// each starting within the first 1.5 s and then searching (60% by words, 40% hybrid) and reading the
// answer for 0.5–1.5 s before the next, as a person does; and 2 editors dropping notes into their collections and ingesting them, one after
// another. Search latency as the clients see it, errors, and then every document an editor was told
// was added looked up. Last, an editor's ingest of 400 dropped notes is cut by kill -9 (the server
// and its worker); the server is started again and every note its progress had reported is looked up.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SearchParams } from '../src/shared/wire.js';
import { openEngine } from '../src/worker/index.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { startCluster } from '../test/support/postgres.js';
import { type Client, connect } from '../test/support/ws-client.js';
import { Rng, type TextModel, trainModel } from './corpus.js';
import { cpuOf } from './process-cpu.js';
import { generatedVectors } from './latency-postgres.js';
import { corpusIndex, queries } from './latency.js';
import { startServe, type Served } from './serve-client.js';
import { benchDir, corporaDir, freshDir, percentile, type BenchResult } from './util.js';

const READERS = 50;
const EDITORS = 2;
const SHARED_COLLECTIONS = 10;
const GRANTED_EACH = 5;
const THINK_MS: [number, number] = [500, 1500];
const CRASH_NOTES = 400;
const CRASH_AFTER = 100;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A team's library as an admin sets it up: the folders as collections, an inbox for each editor, vectors, accounts and grants. Returns each user's token and what was done. */
export async function setUpTeam(
  url: string,
  work: string,
  folders: string[],
  notes: string,
  rng: Rng,
): Promise<{ tokens: Map<string, string>; lines: string[] }> {
  const lines: string[] = [];
  const tokens = new Map<string, string>();
  const engine = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference', store: { url } } });
  try {
    const t = performance.now();
    for (const f of folders) await engine.addCollection(join(notes, f), { name: f });
    for (let e = 1; e <= EDITORS; e++) {
      await mkdir(join(work, `inbox-${e}`), { recursive: true });
      await engine.addCollection(join(work, `inbox-${e}`), { name: `inbox-${e}` });
    }
    const status = await engine.status();
    lines.push(
      `${status.documents} notes, ${status.chunks} passages in ${folders.length} collections, ingested in ${((performance.now() - t) / 1000).toFixed(0)} s`,
    );
    for (let w = engine.backgroundWork(); w; w = engine.backgroundWork()) await w;
    const pool = await openPool(url);
    try {
      const v = await generatedVectors(engine, pool);
      lines.push(`${v.count} generated vectors written in ${v.writeS.toFixed(0)} s, HNSW built in ${v.indexS.toFixed(0)} s`);
    } finally {
      await pool.end();
    }
    for (const f of folders.slice(0, SHARED_COLLECTIONS)) await engine.accounts.grant(f, '@all');
    for (let r = 0; r < READERS; r++) {
      const name = `reader-${r}`;
      tokens.set(name, (await engine.accounts.addUser(name, 'reader')).token);
      const mine = new Set<string>();
      while (mine.size < Math.min(GRANTED_EACH, folders.length - SHARED_COLLECTIONS))
        mine.add(folders[SHARED_COLLECTIONS + rng.int(folders.length - SHARED_COLLECTIONS)]!);
      for (const f of mine) await engine.accounts.grant(f, name);
    }
    for (let e = 1; e <= EDITORS; e++) {
      tokens.set(`editor-${e}`, (await engine.accounts.addUser(`editor-${e}`, 'editor')).token);
      await engine.accounts.grant(`inbox-${e}`, `editor-${e}`);
    }
  } finally {
    engine.close();
  }
  return { tokens, lines };
}

export interface TeamLoad {
  times: { lexical: number[]; hybrid: number[] };
  /** Every search with what it asked and how long it took. */
  searches: { params: SearchParams; mode: 'lexical' | 'hybrid'; ms: number }[];
  failures: string[];
  ingestMs: number[];
  /** Notes the editors were told were added, and how many of them could not be found afterwards. */
  added: string[];
  missing: number;
}

/** One dropped note's ingest found it indexed: added, or already added by the server's folder watcher. */
const indexedNow = (r: { added: number; unchanged: number }): boolean => r.added + r.unchanged === 1;

/** An editor's drop of one generated note into their inbox through kb serve's upload; its path. */
export function dropper(
  port: number,
  tokens: Map<string, string>,
  model: TextModel,
  rng: Rng,
): (e: number, name: string) => Promise<string> {
  const words = model.vocabulary.filter((w) => w.length >= 4);
  const note = (title: string): string =>
    `# ${title}\n\n${Array.from({ length: 6 }, () => Array.from({ length: 40 }, () => rng.pick(words)).join(' ')).join('\n\n')}\n`;
  return async (e, name) => {
    const res = await fetch(`http://127.0.0.1:${port}/upload?collection=inbox-${e}&name=${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.get(`editor-${e}`)}`, origin: `http://127.0.0.1:${port}` },
      body: note(name),
    });
    if (res.status !== 200) throw new Error(`upload ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { path: string }).path;
  };
}

/** `seconds` of a team's load on the kb serve at `port`: READERS searchers and EDITORS editors; `tag` names this run's notes. */
export async function teamLoad(
  port: number,
  owner: Client,
  tokens: Map<string, string>,
  model: TextModel,
  seconds: number,
  tag = '',
): Promise<TeamLoad> {
  const rng = new Rng(3535);
  const readers = await Promise.all(Array.from({ length: READERS }, (_, r) => connect(port, tokens.get(`reader-${r}`)!)));
  const editors = await Promise.all(Array.from({ length: EDITORS }, (_, e) => connect(port, tokens.get(`editor-${e + 1}`)!)));
  const qs = queries(model, 3000);
  const drop = dropper(port, tokens, model, rng);

  // Warm: each searcher's first searches plan the statements and fill the caches.
  await Promise.all(readers.map((c, r) => Promise.all(qs.slice(r * 3, r * 3 + 3).map((q) => c.call('search', { ...q, top: 10 })))));

  const times: { lexical: number[]; hybrid: number[] } = { lexical: [], hybrid: [] };
  const searches: TeamLoad['searches'] = [];
  const failures: string[] = [];
  const added: string[] = [];
  const ingestMs: number[] = [];
  const end = performance.now() + seconds * 1000;
  const search = async (c: Client, r: number): Promise<void> => {
    // People do not all press Enter in the same millisecond: each starts within the first think time.
    await sleep(rng.next() * THINK_MS[1]);
    for (let i = r; performance.now() < end; i += READERS) {
      const mode = rng.next() < 0.6 ? 'lexical' : 'hybrid';
      const t = performance.now();
      const params = qs[i % qs.length]!;
      const answer = await c.call('search', { ...params, mode, top: 10 });
      const ms = performance.now() - t;
      times[mode].push(ms);
      searches.push({ params, mode, ms });
      if (answer.error) failures.push(`search: ${answer.error.code} ${answer.error.message}`);
      await sleep(THINK_MS[0] + rng.next() * (THINK_MS[1] - THINK_MS[0]));
    }
  };
  const edit = async (c: Client, e: number): Promise<void> => {
    for (let i = 0; performance.now() < end; i++) {
      const t = performance.now();
      try {
        const path = await drop(e, `note-${tag}${e}-${i}.md`);
        const answer = await c.call('ingest', { paths: [path] });
        if (answer.error) failures.push(`ingest: ${answer.error.code} ${answer.error.message}`);
        else if (indexedNow(answer.result as { added: number; unchanged: number })) added.push(path);
        else failures.push(`ingest: ${JSON.stringify(answer.result)}`);
      } catch (err) {
        failures.push(`drop: ${(err as Error).message}`);
      }
      ingestMs.push(performance.now() - t);
    }
  };
  await Promise.all([...readers.map((c, r) => search(c, r)), ...editors.map((c, e) => edit(c, e + 1))]);
  for (const c of [...readers, ...editors]) c.close();

  let missing = 0;
  for (const path of added) {
    const got = await owner.call('inspect.document', { target: path });
    if (got.error || (got.result as { chunks: unknown[] }).chunks.length === 0) missing++;
  }
  return { times, searches, failures, ingestMs, added, missing };
}

/** What a load's figures were, as the bench prints them; the p95 of every search. */
export function loadLines(load: TeamLoad, seconds: number): { lines: string[]; p95: number } {
  const all = [...load.times.lexical, ...load.times.hybrid].sort((a, b) => a - b);
  const lex = [...load.times.lexical].sort((a, b) => a - b);
  const hyb = [...load.times.hybrid].sort((a, b) => a - b);
  const ing = [...load.ingestMs].sort((a, b) => a - b);
  const p = (xs: number[], q: number): string => percentile(xs, q).toFixed(1);
  return {
    p95: percentile(all, 95),
    lines: [
      `${READERS} searchers (each its own user, ${THINK_MS[0]}–${THINK_MS[1]} ms between searches) and ${EDITORS} editors for ${seconds} s against kb serve on loopback`,
      `searches: ${all.length} (${(all.length / seconds).toFixed(1)}/s); all p50 ${p(all, 50)} ms, p95 ${p(all, 95)} ms, p99 ${p(all, 99)} ms`,
      `  by words: ${lex.length}, p50 ${p(lex, 50)} ms, p95 ${p(lex, 95)} ms; hybrid: ${hyb.length}, p50 ${p(hyb, 50)} ms, p95 ${p(hyb, 95)} ms`,
      `editors: ${load.added.length} notes dropped and ingested (${(load.added.length / seconds).toFixed(1)}/s; each drop + ingest p50 ${p(ing, 50)} ms, p95 ${p(ing, 95)} ms); ${load.missing} of them missing afterwards`,
      `errors: ${load.failures.length}${load.failures.length ? ` (first: ${load.failures[0]})` : ''}`,
      `slowest: ${[...load.searches]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, 5)
        .map((x) => `${x.mode} ${JSON.stringify(x.params)} ${x.ms.toFixed(0)} ms`)
        .join('; ')}`,
    ],
  };
}

/** `seconds` of load; `folders`: how many of the library's 66 folders (a smaller run while developing it). */
export async function benchTeam({ seconds = 300, folders: take = Infinity } = {}): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  await corpusIndex(model);
  const notes = join(benchDir('corpus100k'), 'notes');
  const folders = (await readdir(notes)).sort().slice(0, take);
  const work = await freshDir('team');
  const dataDir = join(work, 'data');
  const cluster = await startCluster({ shared_buffers: '1GB' });
  let served: Served | null = null;
  try {
    const url = await cluster.database();
    const rng = new Rng(35);
    const { tokens, lines } = await setUpTeam(url, work, folders, notes, rng);

    const env = { KB_STORE: url, KB_CONFIG: join(work, 'none.yaml') };
    served = await startServe(dataDir, env);
    const port = served.port;
    const owner = await connect(port, served.token);
    const postmaster = Number(readFileSync(join(cluster.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const kbCpu = cpuOf(served.child.pid!);
    const pgCpu = cpuOf(postmaster);
    const clientCpu = process.cpuUsage();
    const load = await teamLoad(port, owner, tokens, model, seconds);
    const cpu = { kb: kbCpu(), pg: pgCpu(), clients: (process.cpuUsage(clientCpu).user + process.cpuUsage(clientCpu).system) / 1e6 };
    const { lines: loaded, p95 } = loadLines(load, seconds);
    lines.push(...loaded);
    const n = load.searches.length;
    lines.push(
      `CPU during the load: kb serve and its worker ${cpu.kb.toFixed(0)} s, PostgreSQL ${cpu.pg.toFixed(0)} s, the bench's clients ${cpu.clients.toFixed(0)} s (${((cpu.kb + cpu.pg + cpu.clients) / seconds).toFixed(2)} cores busy); ` +
        `per search, the editors' work included: ${((cpu.kb * 1000) / n).toFixed(1)} + ${((cpu.pg * 1000) / n).toFixed(1)} ms`,
    );
    owner.close();

    // kill -9 mid-ingest: what the progress reported as added is there after a restart.
    const drop = dropper(port, tokens, model, rng);
    const editor = await connect(port, tokens.get('editor-1')!);
    const paths: string[] = [];
    for (let i = 0; i < CRASH_NOTES; i++) paths.push(await drop(1, `crash-${i}.md`));
    const reported: string[] = [];
    const cut = new Promise<void>((resolve) => {
      void editor.call('ingest', { paths }, (p) => {
        const f = (p as { finished?: { path: string; outcome: string } }).finished;
        if (f?.outcome === 'added') reported.push(f.path);
        if (reported.length === CRASH_AFTER) resolve();
      });
    });
    await cut;
    const worker = execFileSync('pgrep', ['-P', String(served.child.pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean);
    const seen = [...reported];
    for (const pid of [String(served.child.pid), ...worker]) process.kill(Number(pid), 'SIGKILL');
    editor.close();
    await new Promise((r) => served!.child.once('exit', r));
    served = await startServe(dataDir, env);
    const again = await connect(served.port, served.token);
    let lost = 0;
    for (const path of seen) {
      const got = await again.call('inspect.document', { target: path });
      if (got.error || (got.result as { chunks: unknown[] }).chunks.length === 0) lost++;
    }
    again.close();
    lines.push(
      `kill -9 of the server and its worker after ${seen.length} of ${CRASH_NOTES} dropped notes were reported added: ${lost} lost after a restart`,
    );

    return {
      name: 'team server (PostgreSQL)',
      lines,
      checks: [
        {
          what: `search p95, ${READERS} users and ${EDITORS} editors`,
          value: p95,
          target: 50,
          better: 'lower',
          unit: ' ms',
        },
        { what: 'errors', value: load.failures.length, target: 0, better: 'lower' },
        { what: 'ingested documents missing afterwards', value: load.missing, target: 0, better: 'lower' },
        { what: 'reported documents lost to kill -9', value: lost, target: 0, better: 'lower' },
      ],
    };
  } finally {
    served?.stop();
    cluster.stop();
  }
}
