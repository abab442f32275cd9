// Crash safety: 30 rounds of a 1,000-file mixed ingest (Markdown, code, PDFs, scans OCR'd, embedded
// with the minilm-l6 test model) killed with SIGKILL at a random moment, checked, re-run to the end and
// compared with an uninterrupted run (documents, chunk ids, word-index rows, vector ids).
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { crashRounds, mixedCorpus } from '../test/support/crash-harness.js';
import { testModel } from './embed.js';
import { corporaDir, freshDir, type BenchResult } from './util.js';

export async function benchCrash(): Promise<BenchResult> {
  const work = await freshDir('crash');
  await mixedCorpus(join(work, 'corpus'), 1000, corporaDir());
  const model = testModel();
  const prepare = (dataDir: string): void => {
    mkdirSync(join(dataDir, 'models'), { recursive: true });
    cpSync(model, join(dataDir, 'models', 'all-MiniLM-L6-v2'), { recursive: true });
  };
  const t0 = performance.now();
  const r = await crashRounds(
    work,
    join(work, 'corpus'),
    30,
    { ...process.env, KB_CONFIG: join(work, 'none.yaml'), NO_COLOR: '1' },
    prepare,
  );
  return {
    name: 'crash',
    lines: [
      `1,000 files (Markdown, code, PDFs, scans), embedded; an uninterrupted ingest takes ${(r.cleanMs / 1000).toFixed(1)} s`,
      `${r.kills} SIGKILLs at random moments: ${r.recovered} recovered (doctor clean, no half-present document, re-run equal to the uninterrupted index) in ${((performance.now() - t0) / 60000).toFixed(1)} min`,
      ...r.failures.map((f) => `  FAILED ${f}`),
    ],
    checks: [{ what: 'random kills recovered', value: r.recovered, target: 30, better: 'higher' }],
  };
}
