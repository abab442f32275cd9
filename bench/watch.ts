// Live folders. 1. Edit → search: a watched collection of 200 notes; 50 times a note is saved with a
// new word, and the time until a search finds it there is measured (chokidar, the batch's quiet time
// and the ingest included). 2. Start: an unchanged collection of 10,000 files reconciled with the
// disk, as every start does (stats and the index compared; no file read).
import { writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { freshDir, percentile, type BenchResult } from './util.js';

async function editToSearch(): Promise<number[]> {
  const work = await freshDir('watch-edit');
  const root = join(work, 'notes');
  await mkdir(root, { recursive: true });
  for (let i = 0; i < 200; i++) await writeFile(join(root, `n${i}.md`), `# Note ${i}\n\nOrdinary words about topic ${i}.\n`);
  const engine = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference' } });
  await engine.addCollection(root);
  const w = await engine.watchCollections();
  const times: number[] = [];
  try {
    for (let i = 0; i < 50; i++) {
      const word = `zeta${i}q${Math.random().toString(36).slice(2, 8)}`;
      const file = join(root, `n${(i * 7) % 200}.md`);
      const t0 = performance.now();
      writeFileSync(file, `# Note\n\nThis note now mentions ${word} for the first time.\n`);
      for (;;) {
        const r = await engine.search({ query: word, mode: 'lexical', top: 1 });
        if (r.results[0]?.citation.path === file) break;
        if (performance.now() - t0 > 10_000) throw new Error(`edit ${i} not found in 10 s`);
        await new Promise((res) => setTimeout(res, 10));
      }
      times.push(performance.now() - t0);
    }
  } finally {
    await w.close();
    engine.close();
  }
  return times.sort((a, b) => a - b);
}

async function reconcileUnchanged(): Promise<{ ms: number; files: number }> {
  const work = await freshDir('watch-10k');
  const root = join(work, 'notes');
  for (let d = 0; d < 100; d++) {
    await mkdir(join(root, `d${d}`), { recursive: true });
    for (let i = 0; i < 100; i++)
      await writeFile(join(root, `d${d}`, `f${i}.md`), `# File ${d}-${i}\n\nSome text for file ${i} in folder ${d}.\n`);
  }
  const first = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference' } });
  await first.addCollection(root);
  first.close();
  // A fresh start: open the index and reconcile, as the worker does.
  const t0 = performance.now();
  const engine = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference' } });
  const [r] = await engine.reconcileCollections();
  const ms = performance.now() - t0;
  engine.close();
  if (!r || r.unchanged !== 10_000 || r.ingested !== 0) throw new Error(`expected 10,000 unchanged files, got ${JSON.stringify(r)}`);
  return { ms, files: r.files };
}

export async function benchWatch(): Promise<BenchResult> {
  const edits = await editToSearch();
  const rec = await reconcileUnchanged();
  return {
    name: 'watch',
    lines: [
      `save → found by search, 50 edits in a watched 200-note collection: p50 ${percentile(edits, 50).toFixed(0)} ms, p95 ${percentile(edits, 95).toFixed(0)} ms, max ${edits.at(-1)!.toFixed(0)} ms`,
      `start: open the index and reconcile an unchanged collection of ${rec.files} files: ${(rec.ms / 1000).toFixed(2)} s`,
    ],
    checks: [
      { what: 'edit appears in search, p95', value: percentile(edits, 95), target: 2000, better: 'lower', unit: ' ms' },
      { what: 'reconcile an unchanged 10,000-file collection', value: rec.ms / 1000, target: 3, better: 'lower', unit: ' s' },
    ],
  };
}
