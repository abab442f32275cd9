// Peak memory of `kb ingest` as users run it: a fresh process parses 10,000+ chunks of notes, indexes
// their words and embeds them all with the minilm-l6 test model (a real-sized BERT).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { trainModel, writeCorpus } from './corpus.js';
import { testModel } from './embed.js';
import { corporaDir, freshDir, repoRoot, type BenchResult } from './util.js';

const NOTES = 1320; // 5 KB generated notes make about 7.7 chunks each

export async function benchMemory(): Promise<BenchResult> {
  const dir = await freshDir('memory');
  await writeCorpus(join(dir, 'notes'), trainModel(join(corporaDir(), 'ir', 'cranfield')), NOTES, 5 * 1024, 11);
  const dataDir = join(dir, 'data');
  const setup = await openEngine({ dataDir });
  await setup.importModel(testModel(), 'all-MiniLM-L6-v2');
  setup.close();

  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      join(repoRoot, 'bench/max-rss.mjs'),
      join(repoRoot, 'bin/kb.js'),
      'ingest',
      join(dir, 'notes'),
      '--json',
      '--data-dir',
      dataDir,
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`kb ingest failed: ${r.stderr}`);
  const summary = JSON.parse(r.stdout) as { added: number; embedded?: number };
  const rssKb = Number(/max_rss_kb=(\d+)/.exec(r.stderr)?.[1]);
  const mb = rssKb / 1024;
  const loopP99 = Number(/loop_p99_ms=([\d.]+)/.exec(r.stderr)?.[1]);
  const loopMax = Number(/loop_max_ms=([\d.]+)/.exec(r.stderr)?.[1]);
  return {
    name: 'memory',
    lines: [
      `kb ingest of ${summary.added} notes: ${summary.embedded ?? 0} chunks indexed and embedded in ${seconds.toFixed(0)} s (${((summary.embedded ?? 0) / seconds).toFixed(0)} chunks/s)`,
      `peak RSS of the process (all threads): ${mb.toFixed(0)} MB`,
      `main thread blocked (event loop delay): p99 ${loopP99} ms, max ${loopMax} ms — what a search typed meanwhile would wait at worst`,
    ],
    checks: [
      { what: 'chunks embedded', value: summary.embedded ?? 0, target: 10_000, better: 'higher' },
      { what: 'peak RSS ingesting + embedding', value: mb, target: 1536, better: 'lower', unit: ' MB' },
    ],
  };
}
