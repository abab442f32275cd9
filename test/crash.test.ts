// Crash safety, a slice of `npm run bench -- crash` (30 rounds of 1,000 files there): a mixed ingest
// (Markdown, code, PDFs, a scan, embedded with the test model) is killed with SIGKILL at random
// moments; each time the data dir must be consistent, and re-running must give the very index an
// uninterrupted run gives.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { crashRounds, mixedCorpus } from './support/crash-harness.js';
import { makeTestModel } from './support/make-test-model.js';
import { corporaDir, tempDir } from './helpers.js';

describe.skipIf(!corporaDir())('crash safety', () => {
  it('recovers from SIGKILL at random moments: consistent after each kill, equal to an uninterrupted run after the re-run', async () => {
    const work = await tempDir();
    await mixedCorpus(join(work, 'corpus'), 150, corporaDir());
    const model = makeTestModel({ arch: 'minilm-l6', out: join(work, 'model') });
    const prepare = (dataDir: string): void => {
      mkdirSync(join(dataDir, 'models'), { recursive: true });
      cpSync(model, join(dataDir, 'models', 'all-MiniLM-L6-v2'), { recursive: true });
    };
    const r = await crashRounds(
      work,
      join(work, 'corpus'),
      4,
      { ...process.env, KB_CONFIG: join(work, 'none.yaml'), NO_COLOR: '1' },
      prepare,
      11,
    );
    expect(r.failures).toEqual([]);
    expect(r.recovered).toBe(4);
  }, 300_000);
});
