// Lexical query latency over a generated 100,000-chunk corpus (snippets and filters included), and the
// wall-clock of `kb search … --json` as a fresh process, the way LLM tools call it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchParams } from '../src/shared/wire.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { Rng, TAGS, type TextModel, trainModel, writeCorpus } from './corpus.js';
import { benchDir, corporaDir, freshDir, percentile, repoRoot, type BenchResult } from './util.js';

const TARGET_CHUNKS = 100_000;
const NOTE_BYTES = 5 * 1024;
const STAMP = 'corpus-v3'; // bump when the index format changes

/** The 100k-chunk index, built once and kept in .bench/corpus100k (delete it to rebuild). */
export async function corpusIndex(model: TextModel): Promise<{ dataDir: string; chunks: number }> {
  const dir = benchDir('corpus100k');
  const stampFile = join(dir, 'stamp.json');
  if (existsSync(stampFile)) {
    const stamp = JSON.parse(readFileSync(stampFile, 'utf8')) as { v: string; chunks: number };
    if (stamp.v === STAMP) return { dataDir: join(dir, 'data'), chunks: stamp.chunks };
  }
  await freshDir('corpus100k');
  // A generated 5 KB note makes about 7.7 chunks (a section per heading).
  const files = Math.ceil(TARGET_CHUNKS / 7.6);
  console.error(`building the ${TARGET_CHUNKS}-chunk corpus (${files} notes, once)…`);
  await writeCorpus(join(dir, 'notes'), model, files, NOTE_BYTES, 7);
  const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store_originals: 'reference' } });
  await engine.ingest([join(dir, 'notes')], { tags: [] });
  const chunks = (await engine.list()).reduce((n, d) => n + d.chunks, 0);
  engine.close();
  writeFileSync(stampFile, JSON.stringify({ v: STAMP, chunks }));
  return { dataDir: join(dir, 'data'), chunks };
}

/** A realistic mix: keywords, typing with a prefix, phrases, filters, and a few full questions. */
export function queries(model: TextModel, n: number): SearchParams[] {
  const rng = new Rng(1234);
  const words = model.vocabulary.filter((w) => w.length >= 4);
  const out: SearchParams[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng.next();
    const k = (m: number): string => Array.from({ length: m }, () => rng.pick(words)).join(' ');
    if (r < 0.35) out.push({ query: k(1) });
    else if (r < 0.6) out.push({ query: k(2) });
    else if (r < 0.7) out.push({ query: k(3) });
    else if (r < 0.8) {
      const w = k(2);
      out.push({ query: w.slice(0, w.length - 1 - rng.int(3)), prefix: true });
    } else if (r < 0.85) {
      const seed = rng.pick(model.seeds);
      const at = rng.int(Math.max(1, seed.length - 1));
      out.push({ query: `"${seed[at] ?? 'flow'} ${seed[at + 1] ?? 'field'}"` });
    } else if (r < 0.95) {
      const f = rng.int(3);
      out.push({
        query: k(2),
        ...(f === 0 ? { tags: [rng.pick(TAGS)] } : f === 1 ? { type: 'markdown' as const } : { path: `folder-0${rng.int(9)}*/**` }),
      });
    } else out.push({ query: `what is known about the ${k(4)} in this case` });
  }
  return out;
}

/** Each query as a fresh `kb search … --json` process, the way LLM tools call it: wall-clock ms, sorted. */
export function freshSearches(dataDir: string, qs: { query: string }[]): number[] {
  const times: number[] = [];
  for (const q of qs) {
    const t0 = performance.now();
    const r = spawnSync(
      process.execPath,
      [join(repoRoot, 'bin/kb.js'), 'search', q.query, '--json', '--mode', 'lexical', '--data-dir', dataDir],
      {
        encoding: 'utf8',
      },
    );
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`kb search failed: ${r.stderr}`);
  }
  return times.sort((a, b) => a - b);
}

async function timeQueries(engine: Engine, qs: SearchParams[]): Promise<number[]> {
  const times: number[] = [];
  for (const q of qs) {
    const t = performance.now();
    await engine.search({ mode: 'lexical', top: 10, ...q });
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b);
}

export async function benchLatency(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  const { dataDir, chunks } = await corpusIndex(model);
  const engine = await openEngine({ dataDir });
  const qs = queries(model, 1200);
  await timeQueries(engine, qs.slice(0, 200)); // warm the page cache and statements
  const t = await timeQueries(engine, qs.slice(200));
  const questions = await timeQueries(
    engine,
    qs.filter((q) => q.query.startsWith('what is known')),
  );
  engine.close();

  // Fresh process per query, as an LLM tool runs it.
  execFileSync(process.execPath, [join(repoRoot, 'scripts/build.mjs')]);
  const cold = freshSearches(dataDir, qs.slice(0, 25));
  const p = (xs: number[], q: number): number => percentile(xs, q);
  return {
    name: 'latency',
    lines: [
      `${chunks} chunks; ${t.length} queries (keywords, prefix, phrases, filters, 5% questions), top 10 with snippets`,
      `in-process: p50 ${p(t, 50).toFixed(2)} ms, p95 ${p(t, 95).toFixed(2)} ms, p99 ${p(t, 99).toFixed(2)} ms, max ${t.at(-1)!.toFixed(1)} ms`,
      `questions only: p50 ${p(questions, 50).toFixed(2)} ms, p95 ${p(questions, 95).toFixed(2)} ms`,
      `fresh process \`kb search … --json\`: median ${p(cold, 50).toFixed(0)} ms, max ${cold.at(-1)!.toFixed(0)} ms (${cold.length} runs)`,
    ],
    checks: [
      { what: 'lexical p50', value: p(t, 50), target: 3, better: 'lower', unit: ' ms' },
      { what: 'lexical p95', value: p(t, 95), target: 10, better: 'lower', unit: ' ms' },
      { what: 'kb search --json, fresh process (median)', value: p(cold, 50), target: 300, better: 'lower', unit: ' ms' },
    ],
  };
}
