// Fuzzing at full size: 100,000 adversarial queries (FTS5 syntax, unicode, control characters, huge
// lengths) against an index, and 2,000 mutated files (bit flips, truncations, zeroed and repeated
// ranges of real PDFs, images, Markdown and code) ingested next to a sentinel document.
import { join } from 'node:path';
import { Rng, fuzzFiles, fuzzQuery } from '../test/support/fuzz.js';
import { isKbError } from '../src/shared/errors.js';
import { SearchResultSchema } from '../src/shared/wire.js';
import { openEngine } from '../src/worker/index.js';
import { corporaDir, freshDir, repoRoot, type BenchResult } from './util.js';
import { mkdir, writeFile } from 'node:fs/promises';

export async function benchFuzz(): Promise<BenchResult> {
  const work = await freshDir('fuzz');
  await mkdir(join(work, 'keep'), { recursive: true });
  await writeFile(
    join(work, 'keep', 'sentinel.md'),
    '# Sentinel\n\nthe albatross must survive. Install git. Boundary layer flow. 한국어 검색\n',
  );
  const engine = await openEngine({ dataDir: join(work, 'data') });
  await engine.ingest([join(work, 'keep')]);

  const r = new Rng(2026);
  let crashes = 0;
  let leaks = 0;
  let refused = 0;
  const N = 100_000;
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const query = fuzzQuery(r);
    try {
      const res = await engine.search({ query, mode: i % 3 === 0 ? 'hybrid' : 'lexical', prefix: i % 2 === 0, top: 5 });
      SearchResultSchema.parse(JSON.parse(JSON.stringify(res)));
    } catch (e) {
      if (isKbError(e) && (e.code === 'QUERY_INVALID' || e.code === 'INVALID_ARGUMENT')) {
        refused++;
        if (/SQLITE|sqlite3|fts5: syntax|no such column/i.test(e.message)) leaks++;
      } else {
        crashes++;
        if (crashes <= 3) console.error(`query ${JSON.stringify(query).slice(0, 120)}: ${(e as Error).message}`);
      }
    }
  }
  const queryS = (performance.now() - t0) / 1000;

  const c = corporaDir();
  const seeds = [
    'pdf/py-pdf-sample-files/001-trivial/minimal-document.pdf',
    'pdf/py-pdf-sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf',
    'pdf/py-pdf-sample-files/026-latex-multicolumn/multicolumn.pdf',
    'pdf/pdfplumber/issue-33-lorem-ipsum.pdf',
    'images/tesseract.js/simple.png',
    'images/tesseract.js/simple-90.jpg',
  ].map((p) => join(c, p));
  seeds.push(
    join(repoRoot, 'README.md'),
    join(repoRoot, 'docs/architecture.md'),
    join(repoRoot, 'src/shared/citation.ts'),
    join(repoRoot, 'src/worker/search/query.ts'),
  );
  const files = fuzzFiles(join(work, 'fuzz'), seeds, 2000, new Rng(7));
  const t1 = performance.now();
  let ingestCrash = 0;
  let s = null;
  try {
    s = await engine.ingest([join(work, 'fuzz')]);
  } catch (e) {
    ingestCrash++;
    console.error(`ingest threw: ${(e as Error).message}`);
  }
  const fileS = (performance.now() - t1) / 1000;
  const accounted = s ? s.added + s.updated + s.unchanged + s.moved + s.failed + s.skipped.length : 0;
  const sentinel =
    (await engine.search({ query: 'albatross', mode: 'lexical' })).results[0]?.citation.path === join(work, 'keep', 'sentinel.md');
  const doctorFails = (await engine.doctor()).checks.filter((x) => x.status === 'fail').length;
  engine.close();
  return {
    name: 'fuzz',
    lines: [
      `${N} adversarial queries in ${queryS.toFixed(0)} s: ${crashes} crashes, ${refused} refused as QUERY_INVALID, ${leaks} SQL errors leaked, every result valid JSON of the wire schema`,
      `${files.length} mutated files in ${fileS.toFixed(0)} s: ${s?.added ?? 0} indexed, ${s?.failed ?? 0} refused with their own error, ${s?.skipped.length ?? 0} skipped; ${accounted} of ${files.length} accounted for; sentinel ${sentinel ? 'intact' : 'LOST'}; doctor ${doctorFails ? 'FAILED' : 'clean'}`,
    ],
    checks: [
      { what: 'crashes in 100,000 fuzzed queries', value: crashes + leaks, target: 0, better: 'lower' },
      {
        what: 'crashes or losses in 2,000 fuzzed files',
        value: ingestCrash + (accounted === files.length ? 0 : 1) + (sentinel ? 0 : 1) + doctorFails,
        target: 0,
        better: 'lower',
      },
    ],
  };
}
