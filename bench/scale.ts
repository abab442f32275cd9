// `npm run bench -- scale`: kb at a heavy library's size. The generated library (scale-corpus.ts) is
// ingested part by part through `kb serve`'s RPC, and measured as it grows — at 100k, 300k and 1M
// passages — so the report shows how each cost grows with N: the word index's size against the raw
// text, lexical and prefix-keystroke latency as the app sees it (request → response over the
// WebSocket), the Library's list, facets, status, a fresh `kb search` process, the ingest rate of
// every part and the server's peak memory.
// KB_SCALE_PARTS=N stops after N parts of about 100,000 passages (default 10); the built library is
// kept in .bench/scale and measured again, without building, while its stamp matches.
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { modelSpec } from '../src/worker/embed/registry.js';
import { openEngine } from '../src/worker/index.js';
import { mergeDue } from '../src/worker/store/fts-merge.js';
import { fingerprintOf } from '../src/worker/vectors/semantic.js';
import { OLD_VERSIONS_KEPT_MS } from '../src/worker/vectors/retention.js';
import { VectorStore } from '../src/worker/vectors/store.js';
import { tableName } from '../src/worker/vectors/table-name.js';
import { Rng } from './corpus.js';
import { candidateCut } from './candidate-cut.js';
import { freshSearches } from './latency.js';
import { MODEL, VECTOR_SEED, pointsAround, topicCentres, withVectors } from './hybrid.js';
import { type Library, library, writePart } from './scale-corpus.js';
import { applyEdits, copyDataDir, planEdits, restoreEdits } from './scale-edits.js';
import { type Conn, type Served, startServe } from './serve-client.js';
import { benchDir, corporaDir, freshDir, percentile, type BenchResult, type Check } from './util.js';

const PASSAGES_PER_PART = 100_000;
const MEASURE_AT = new Set([1, 3, 10]);
const STAMP = 'scale-v1'; // bump when the generator or the index format changes

interface Part {
  files: number;
  bytes: number;
  passages: number;
  seconds: number;
}

interface Stage {
  parts: number;
  passages: number;
  documents: number;
  rawBytes: number;
  indexBytes: number;
  lexical: number[];
  prefix: number[];
  library: number;
  facets: number;
  status: number;
  fresh: number;
  rssMb: number;
  /** Seconds from the ingest's end until the heavy words' tops had seen every chunk; their units and bytes. */
  topsS: number;
  topsUnits: number;
  topsBytes: number;
  /** Seconds until a pending index upgrade (maintenance/upgrade.ts) was done; kb doctor, and kb gc twice (the first gives back what it freed). */
  upgradeS: number;
  doctorMs: number;
  gcFirstMs: number;
  gcCompactedBytes: number;
  gcMs: number;
}

const ms = (x: number): string => `${x.toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t = performance.now();
  const value = await fn();
  return { ms: performance.now() - t, value };
}

async function median(n: number, fn: () => Promise<unknown>): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < n; i++) xs.push((await timed(fn)).ms);
  return xs.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

async function ok(c: Conn, method: string, params: unknown): Promise<unknown> {
  const r = await c.call(method, params);
  if (r.error) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/** Words as people type them: most often the frequent ones, from both fields' vocabularies and the tail. */
function typedWords(lib: Library, rng: Rng, n: number): string[] {
  const common = lib.models.flatMap((m) => m.vocabulary.filter((w) => w.length >= 4));
  return Array.from({ length: n }, () => (rng.next() < 0.8 ? rng.pick(common) : lib.tail.pick(rng)));
}

function lexicalQueries(lib: Library): { query: string; prefix?: boolean }[] {
  const rng = new Rng(77);
  const words = typedWords(lib, rng, 3000);
  const w = (): string => rng.pick(words);
  return Array.from({ length: 700 }, () => {
    const r = rng.next();
    if (r < 0.4) return { query: w() };
    if (r < 0.75) return { query: `${w()} ${w()}` };
    if (r < 0.9) return { query: `${w()} ${w()} ${w()}` };
    return { query: `"${w()} ${w()}"` };
  });
}

/** The first 2–4 letters of a word: the keystrokes every search as you type starts with. */
function prefixQueries(lib: Library): { query: string; prefix: true }[] {
  const rng = new Rng(78);
  return typedWords(lib, rng, 400).map((word) => ({ query: word.slice(0, 2 + rng.int(3)), prefix: true as const }));
}

async function latencies(c: Conn, qs: { query: string; prefix?: boolean }[]): Promise<number[]> {
  const times: number[] = [];
  for (const q of qs) {
    const t = await timed(() => ok(c, 'search', { mode: 'lexical', top: 10, ...q }));
    times.push(t.ms);
  }
  return times.sort((a, b) => a - b);
}

function fileSize(p: string): number {
  return existsSync(p) ? statSync(p).size : 0;
}

/** Peak resident memory of kb serve and its engine worker (each process's high-water mark, added). */
function peakRssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  const tree = (p: number): number[] => {
    const kids = readdirSync(`/proc/${p}/task`).flatMap((t) =>
      readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
    return [p, ...kids.flatMap(tree)];
  };
  let kb = 0;
  for (const p of tree(pid)) kb += Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
  return kb / 1024;
}

/**
 * Waits until kb serve's background upkeep has brought the heavy words' tops (search/tops.ts) up to
 * the last chunk, as a user's app would before its searches of common words get fast. Read from the
 * index file itself: the tops are not in the RPC contract.
 */
async function topsReady(dataDir: string): Promise<{ seconds: number; units: number; bytes: number }> {
  const start = performance.now();
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    for (;;) {
      const state = db.prepare("SELECT value FROM meta WHERE key = 'word_tops'").get() as { value: string } | undefined;
      const last = (db.prepare('SELECT max(rowid) AS m FROM chunks').get() as { m: number }).m;
      if (state && (JSON.parse(state.value) as { upto: number }).upto >= last) break;
      if (performance.now() - start > 20 * 60_000) throw new Error('the tops of heavy words were not ready after 20 minutes');
      await new Promise((r) => setTimeout(r, 2000));
    }
    const t = db.prepare('SELECT count(*) AS units, sum(length(entries)) AS bytes FROM word_tops').get() as {
      units: number;
      bytes: number;
    };
    return { seconds: (performance.now() - start) / 1000, ...t };
  } finally {
    db.close();
  }
}

/** Waits until kb serve has finished the pending index upgrades (their meta keys gone: maintenance/upgrade.ts). */
async function upgradeDone(dataDir: string): Promise<number> {
  const start = performance.now();
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    while (db.prepare("SELECT 1 FROM meta WHERE key LIKE '%_upgrade'").get()) {
      if (performance.now() - start > 30 * 60_000) throw new Error('the index upgrade was not done after 30 minutes');
      await new Promise((r) => setTimeout(r, 2000));
    }
    return (performance.now() - start) / 1000;
  } finally {
    db.close();
  }
}

async function measure(served: Served, c: Conn, lib: Library, dataDir: string, parts: number, rawBytes: number): Promise<Stage> {
  const upgradeS = await upgradeDone(dataDir);
  const tops = await topsReady(dataDir);
  const doctor = await timed(() => ok(c, 'doctor', {}));
  const gcFirst = await timed(() => ok(c, 'gc', {}));
  const gc = await timed(() => ok(c, 'gc', {}));
  const facets = (await ok(c, 'facets', {})) as { documents: number };
  const status = (await ok(c, 'index.status', {})) as { chunks: number };
  const lex = lexicalQueries(lib);
  await latencies(c, lex.slice(0, 100)); // warm the page cache and the statements
  const lexical = await latencies(c, lex.slice(100));
  const prefix = await latencies(c, prefixQueries(lib));
  const cold = freshSearches(dataDir, lex.slice(0, 9));
  return {
    parts,
    passages: status.chunks,
    documents: facets.documents,
    rawBytes,
    indexBytes: fileSize(join(dataDir, 'kb.sqlite')) + fileSize(join(dataDir, 'kb.sqlite-wal')),
    lexical,
    prefix,
    library: await median(5, () => ok(c, 'documents.page', { limit: 100 })),
    facets: await median(5, () => ok(c, 'facets', {})),
    status: await median(5, () => ok(c, 'index.status', {})),
    fresh: cold[4]!,
    rssMb: peakRssMb(served.child.pid),
    topsS: tops.seconds,
    topsUnits: tops.units,
    topsBytes: tops.bytes,
    upgradeS,
    doctorMs: doctor.ms,
    gcFirstMs: gcFirst.ms,
    gcCompactedBytes: (gcFirst.value as { compacted_bytes: number }).compacted_bytes,
    gcMs: gc.ms,
  };
}

interface Edits {
  files: number;
  folders: number;
  /** Chunks written again (a revised file's passages) and chunks deleted (with their documents). */
  written: number;
  deleted: number;
  seconds: number;
  /** Seconds from the last edit until the word indexes were merged whole again. */
  mergeS: number;
  /** Latency once the edits are in, the tops have caught up and the word indexes are merged. */
  lexical: number[];
  prefix: number[];
}

/** Waits until kb serve has merged the word indexes whole, if the writes made a merge due (maintenance/merge-upkeep.ts). */
async function merged(dataDir: string): Promise<number> {
  const start = performance.now();
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    while (mergeDue(db)) {
      if (performance.now() - start > 20 * 60_000) throw new Error('the word indexes were not merged after 20 minutes');
      await new Promise((r) => setTimeout(r, 1000));
    }
    return (performance.now() - start) / 1000;
  } finally {
    db.close();
  }
}

function chunkRows(dataDir: string): { count: number; last: number } {
  const db = new Database(join(dataDir, 'kb.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT count(*) AS count, max(rowid) AS last FROM chunks').get() as { count: number; last: number };
  } finally {
    db.close();
  }
}

/**
 * About 100,000 passages changed or deleted through kb serve's RPC, on a copy of the built index (the
 * library's files edited in place and put back after), then the same searches timed again: latency
 * must not creep as a library is edited for years.
 */
async function measureEdits(dir: string, lib: Library): Promise<Edits> {
  const libraryDir = join(dir, 'library');
  const backup = join(dir, 'edit-backup');
  const dataDir = join(dir, 'edited');
  restoreEdits(libraryDir, backup);
  copyDataDir(join(dir, 'data'), dataDir);
  const served = await startServe(dataDir, { KB_CONFIG: join(dir, 'none.yaml') });
  try {
    const c = await served.connect();
    const plan = planEdits(libraryDir);
    const before = chunkRows(dataDir);
    console.error(`scale: revising ${plan.edit.length} files and deleting ${plan.remove.length} folders…`);
    applyEdits(plan, libraryDir, backup);
    const t = performance.now();
    await ok(c, 'ingest', { paths: plan.edit });
    for (const folder of plan.remove) await ok(c, 'remove', { target: folder });
    const seconds = (performance.now() - t) / 1000;
    const after = chunkRows(dataDir);
    const written = after.last - before.last;
    const mergeS = await merged(dataDir);
    await topsReady(dataDir);
    const lex = lexicalQueries(lib);
    await latencies(c, lex.slice(0, 100));
    const lexical = await latencies(c, lex.slice(100));
    const prefix = await latencies(c, prefixQueries(lib));
    c.close();
    return {
      files: plan.edit.length,
      folders: plan.remove.length,
      written,
      deleted: before.count + written - after.count,
      seconds,
      mergeS,
      lexical,
      prefix,
    };
  } finally {
    served.stop();
    restoreEdits(libraryDir, backup);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface Vectors {
  vectors: number;
  indexBuildS: number;
  indexDetail: string;
  /** Right after the index build, and once its former files were deleted (kb gc, past the time they are kept). */
  builtBytes: number;
  storeBytes: number;
  payloadBytes: number;
  recall: number;
  hybrid: number[];
  rssMb: number;
}

function bytesUnder(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .reduce((n, e) => n + statSync(join(e.parentPath, e.name)).size, 0);
}

/**
 * Vectors at this size: random clustered unit vectors of the real dimension written straight into the
 * store (their values do not change what a search costs), the approximate index built as the engine
 * builds it, its recall@10 against an exact scan, and hybrid latency over kb serve's RPC.
 */
async function measureVectors(dataDir: string, lib: Library): Promise<Vectors> {
  await withVectors(dataDir);
  const engine = await openEngine({ dataDir });
  const t = performance.now();
  await engine.syncVectors();
  await engine.backgroundWork();
  const indexBuildS = (performance.now() - t) / 1000;
  const indexDetail = (await engine.doctor()).checks.find((c) => c.name === 'vector index')?.detail ?? '?';
  // The build leaves the table's former files on disk while a reader may still be on them: the store
  // is measured as a long-lived host or kb gc leaves it once that time is past.
  const builtBytes = bytesUnder(join(dataDir, 'vectors'));
  await new Promise((r) => setTimeout(r, OLD_VERSIONS_KEPT_MS + 1000));
  await engine.gc();
  engine.close();
  const spec = modelSpec(MODEL)!;
  const store = await VectorStore.open(join(dataDir, 'vectors'), tableName(fingerprintOf(spec)));
  // Queries about the collection's own topics (the centres withVectors drew first from the same
  // seed: its first batch's), as embedded questions about these documents are: new points, not
  // stored ones. Random directions would be about nothing the collection holds.
  const queries = pointsAround(topicCentres(spec.dimension, new Rng(VECTOR_SEED)), 50, new Rng(4242));
  let found = 0;
  for (const q of queries) {
    const exact = new Set((await store.search(q, 10, { tags: [] }, { exact: true })).map((h) => h.chunk_id));
    found += (await store.search(q, 10, { tags: [] })).filter((h) => exact.has(h.chunk_id)).length;
  }
  const vectors = (await store.indexStats())?.indexed ?? 0;
  const served = await startServe(dataDir, { KB_CONFIG: join(dataDir, '..', 'none.yaml') });
  try {
    const c = await served.connect();
    const qs = lexicalQueries(lib);
    const hybrid: number[] = [];
    for (const [i, q] of qs.slice(0, 400).entries()) {
      const r = await timed(() => ok(c, 'search', { mode: 'hybrid', top: 10, query: q.query }));
      if (i >= 50) hybrid.push(r.ms); // the first load the model and warm the caches
      if ((r.value as { vector?: { status: string } }).vector?.status !== 'ok') throw new Error('hybrid search ran without vectors');
    }
    c.close();
    return {
      vectors,
      indexBuildS,
      indexDetail,
      builtBytes,
      storeBytes: bytesUnder(join(dataDir, 'vectors')),
      payloadBytes: vectors * spec.dimension * 4,
      recall: found / (queries.length * 10),
      hybrid: hybrid.sort((a, b) => a - b),
      rssMb: peakRssMb(served.child.pid),
    };
  } finally {
    served.stop();
  }
}

function stageLine(s: Stage): string[] {
  const p = (xs: number[], q: number): string => percentile(xs, q).toFixed(1);
  return [
    `${s.passages.toLocaleString('en-US')} passages, ${s.documents.toLocaleString('en-US')} documents (${s.parts} parts): ` +
      `index ${(s.indexBytes / 1048576).toFixed(0)} MB = ${(s.indexBytes / s.rawBytes).toFixed(2)}× the raw text (${(s.rawBytes / 1048576).toFixed(0)} MB)`,
    `  lexical p50 ${p(s.lexical, 50)} / p95 ${p(s.lexical, 95)} ms; 2–4 letter prefix p50 ${p(s.prefix, 50)} / p95 ${p(s.prefix, 95)} ms (RPC)`,
    `  Library open (first page) ${ms(s.library)}, facets ${ms(s.facets)}, status ${ms(s.status)}, fresh kb search ${ms(s.fresh)}; kb serve peak RSS ${s.rssMb.toFixed(0)} MB`,
    `  tops of heavy words: ${s.topsUnits.toLocaleString('en-US')} words and prefixes, ${(s.topsBytes / 1048576).toFixed(1)} MB, current ${s.topsS.toFixed(0)} s after the ingest`,
    `  index upgrade done ${s.upgradeS.toFixed(0)} s after opening; kb doctor ${(s.doctorMs / 1000).toFixed(1)} s; kb gc ${(s.gcFirstMs / 1000).toFixed(1)} s (gave back ${(s.gcCompactedBytes / 1048576).toFixed(0)} MB), again ${(s.gcMs / 1000).toFixed(1)} s`,
  ];
}

export async function benchScale(): Promise<BenchResult> {
  const wanted = Math.max(1, Math.min(10, Number(process.env.KB_SCALE_PARTS ?? 10)));
  const lib = library(corporaDir());
  const dir = benchDir('scale');
  const stampFile = join(dir, 'stamp.json');
  const stamp = existsSync(stampFile) ? (JSON.parse(readFileSync(stampFile, 'utf8')) as { v: string; parts: Part[]; raw: number }) : null;
  const reuse = stamp?.v === STAMP && stamp.parts.length >= wanted && process.env.KB_SCALE_FRESH !== '1';
  if (!reuse) await freshDir('scale');
  const dataDir = join(dir, 'data');
  const served = await startServe(dataDir, { KB_CONFIG: join(dir, 'none.yaml') });
  const stages: Stage[] = [];
  const parts: Part[] = reuse ? stamp.parts : [];
  let raw = reuse ? stamp.raw : 0;
  try {
    const c = await served.connect();
    if (reuse) stages.push(await measure(served, c, lib, dataDir, parts.length, raw));
    else {
      for (let i = 0; i < wanted; i++) {
        const partDir = join(dir, 'library', `part-${i}`);
        console.error(`scale: writing part ${i + 1} of ${wanted}…`);
        const written = await writePart(partDir, lib, i, PASSAGES_PER_PART);
        raw += written.bytes;
        const before = ((await ok(c, 'index.status', {})) as { chunks: number }).chunks;
        console.error(`scale: ingesting part ${i + 1} (${written.files} files)…`);
        const t = await timed(() => ok(c, 'ingest', { paths: [partDir] }));
        const after = ((await ok(c, 'index.status', {})) as { chunks: number }).chunks;
        parts.push({ files: written.files, bytes: written.bytes, passages: after - before, seconds: t.ms / 1000 });
        writeFileSync(stampFile, JSON.stringify({ v: `${STAMP}-building`, parts, raw }));
        if (MEASURE_AT.has(i + 1) || i + 1 === wanted) {
          console.error(`scale: measuring at ${after.toLocaleString('en-US')} passages…`);
          stages.push(await measure(served, c, lib, dataDir, i + 1, raw));
        }
      }
      writeFileSync(stampFile, JSON.stringify({ v: STAMP, parts, raw }));
    }
    c.close();
  } finally {
    served.stop();
  }
  // The candidate cut against no cut (every chunk a word of the query matches, scored): the app's
  // top 10, on 100 of the latency queries. Without the cut a common word's search takes seconds here.
  const cut = await candidateCut(
    dataDir,
    lexicalQueries(lib)
      .slice(100, 200)
      .map((q) => q.query),
    10,
    10,
  );
  const edits = process.env.KB_SCALE_EDITS === '0' ? null : await measureEdits(dir, lib);
  const vec = process.env.KB_SCALE_VECTORS === '0' ? null : await measureVectors(dataDir, lib);
  const last = stages.at(-1)!;
  const rate = (p: Part): number => p.passages / p.seconds;
  const first = parts[0]!;
  const final = parts.at(-1)!;
  const notesPerS = final.files / final.seconds;
  const lines = [
    ...parts.map(
      (p, i) =>
        `part ${i + 1}: ${p.files.toLocaleString('en-US')} files, ${p.passages.toLocaleString('en-US')} passages in ${p.seconds.toFixed(0)} s ` +
        `(${(p.files / p.seconds).toFixed(0)} files/s, ${rate(p).toFixed(0)} passages/s)`,
    ),
    ...stages.flatMap(stageLine),
    `candidate cut: the top 10 holds ${(cut.overlap * 100).toFixed(1)}% of the top 10 scored without it (${cut.cutMs.toFixed(1)} ms a query; ${(cut.wholeMs / 1000).toFixed(1)} s without)`,
    ...(edits
      ? [
          `edits: ${edits.files.toLocaleString('en-US')} files revised, ${edits.folders} folders deleted in ${edits.seconds.toFixed(0)} s: ` +
            `${edits.written.toLocaleString('en-US')} passages written again, ${edits.deleted.toLocaleString('en-US')} deleted; ` +
            `the word indexes merged whole ${edits.mergeS.toFixed(0)} s after`,
          `  then lexical p50 ${percentile(edits.lexical, 50).toFixed(1)} / p95 ${percentile(edits.lexical, 95).toFixed(1)} ms; ` +
            `2–4 letter prefix p50 ${percentile(edits.prefix, 50).toFixed(1)} / p95 ${percentile(edits.prefix, 95).toFixed(1)} ms (RPC)`,
        ]
      : []),
    ...(vec
      ? [
          `vectors (384-d, generated): ${vec.vectors.toLocaleString('en-US')} indexed; index ready after ${vec.indexBuildS.toFixed(0)} s (${vec.indexDetail})`,
          `  recall@10 of the approximate search against an exact scan ${vec.recall.toFixed(3)}; store ${(vec.storeBytes / 1048576).toFixed(0)} MB = ${(vec.storeBytes / vec.payloadBytes).toFixed(2)}× its float32 payload (${(vec.builtBytes / vec.payloadBytes).toFixed(2)}× right after the build, before kb gc)`,
          `  hybrid (RPC, query embedded by the minilm-l6 test model) p50 ${percentile(vec.hybrid, 50).toFixed(1)} / p95 ${percentile(vec.hybrid, 95).toFixed(1)} ms; kb serve peak RSS ${vec.rssMb.toFixed(0)} MB`,
        ]
      : []),
  ];
  const checks: Check[] = [
    {
      what: `word index / raw text at ${last.passages} passages`,
      value: last.indexBytes / last.rawBytes,
      target: 1.5,
      better: 'lower',
      unit: '×',
    },
    { what: 'lexical p50 (RPC)', value: percentile(last.lexical, 50), target: 5, better: 'lower', unit: ' ms' },
    { what: 'lexical p95 (RPC)', value: percentile(last.lexical, 95), target: 15, better: 'lower', unit: ' ms' },
    { what: '2–4 letter prefix p95 (RPC)', value: percentile(last.prefix, 95), target: 30, better: 'lower', unit: ' ms' },
    { what: 'Library open (first page)', value: last.library, target: 300, better: 'lower', unit: ' ms' },
    { what: 'tag and type counts (facets)', value: last.facets, target: 50, better: 'lower', unit: ' ms' },
    { what: 'kb status', value: last.status, target: 200, better: 'lower', unit: ' ms' },
    { what: 'fresh kb search (median)', value: last.fresh, target: 300, better: 'lower', unit: ' ms' },
    { what: 'kb serve peak RSS', value: last.rssMb, target: 1536, better: 'lower', unit: ' MB' },
    { what: 'kb doctor', value: last.doctorMs / 1000, target: 30, better: 'lower', unit: ' s' },
    { what: 'kb gc', value: last.gcMs / 1000, target: 60, better: 'lower', unit: ' s' },
  ];
  if (edits)
    checks.push(
      { what: 'lexical p50 after the edits (RPC)', value: percentile(edits.lexical, 50), target: 5, better: 'lower', unit: ' ms' },
      { what: 'lexical p95 after the edits (RPC)', value: percentile(edits.lexical, 95), target: 15, better: 'lower', unit: ' ms' },
      {
        what: '2–4 letter prefix p95 after the edits (RPC)',
        value: percentile(edits.prefix, 95),
        target: 30,
        better: 'lower',
        unit: ' ms',
      },
    );
  if (vec)
    checks.push(
      { what: 'approximate vector search recall@10', value: vec.recall, target: 0.95, better: 'higher' },
      { what: 'hybrid p95 (RPC)', value: percentile(vec.hybrid, 95), target: 60, better: 'lower', unit: ' ms' },
      { what: 'vector store / float32 payload', value: vec.storeBytes / vec.payloadBytes, target: 1.2, better: 'lower', unit: '×' },
    );
  if (!reuse) {
    checks.push({ what: 'ingest rate of the last part (files/s)', value: notesPerS, target: 150, better: 'higher', unit: '/s' });
    if (parts.length > 1)
      checks.push({
        what: 'ingest rate, last part / first part',
        value: rate(final) / rate(first),
        target: 0.8,
        better: 'higher',
        unit: '×',
      });
  }
  return { name: 'scale', lines, checks };
}
