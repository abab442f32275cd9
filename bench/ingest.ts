// Markdown ingest throughput for 5 KB notes (no embeddings), and the size of the index on disk.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { trainModel, writeCorpus } from './corpus.js';
import { corporaDir, freshDir, type BenchResult } from './util.js';

const FILES = 2000;

function dirBytes(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.size;
  return readdirSync(p).reduce((n, f) => n + dirBytes(join(p, f)), 0);
}

export async function benchIngest(): Promise<BenchResult> {
  const model = trainModel(join(corporaDir(), 'ir', 'cranfield'));
  const work = await freshDir('ingest');
  const raw = await writeCorpus(join(work, 'notes'), model, FILES, 5 * 1024);
  const engine = await openEngine({ dataDir: join(work, 'data') });
  const t0 = performance.now();
  const s = await engine.ingest([join(work, 'notes')]);
  const secs = (performance.now() - t0) / 1000;
  const chunks = (await engine.list()).reduce((n, d) => n + d.chunks, 0);
  engine.close(); // checkpoints the WAL into kb.sqlite
  const index = dirBytes(join(work, 'data', 'kb.sqlite'));
  const blobs = dirBytes(join(work, 'data', 'blobs'));
  const rate = s.added / secs;
  return {
    name: 'ingest',
    lines: [
      `${s.added} notes (${(raw / 1048576).toFixed(1)} MB, ${chunks} chunks) in ${secs.toFixed(1)} s: ${rate.toFixed(0)} files/s, ${(raw / 1048576 / secs).toFixed(2)} MB/s`,
      `index (kb.sqlite) ${(index / 1048576).toFixed(1)} MB = ${(index / raw).toFixed(2)}× the raw text; stored originals ${(blobs / 1048576).toFixed(1)} MB`,
    ],
    checks: [
      { what: 'Markdown ingest rate (5 KB notes)', value: rate, target: 150, better: 'higher', unit: ' files/s' },
      { what: 'index size / raw text', value: index / raw, target: 3, better: 'lower', unit: '×' },
    ],
  };
}
