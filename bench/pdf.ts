// PDF text-layer throughput and memory: a fresh `kb ingest` process (no embedding model) reading a
// generated 1,000-page PDF, and the real PDFs of ../shared/corpora/pdf.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { makeLongPdf } from '../test/support/make-test-pdf.js';
import { openDb } from '../src/worker/store/open-db.js';
import { openEngine } from '../src/worker/index.js';
import { benchDir, corporaDir, repoRoot, type BenchResult } from './util.js';

const PAGES = 1000;

function ingest(target: string, dataDir: string): { seconds: number; rssMb: number; summary: { added: number; failed: number } } {
  const started = performance.now();
  const r = spawnSync(
    process.execPath,
    ['--import', join(repoRoot, 'bench/max-rss.mjs'), join(repoRoot, 'bin/kb.js'), 'ingest', target, '--json', '--data-dir', dataDir],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0 && r.status !== 3) throw new Error(`kb ingest failed: ${r.stderr}`);
  return {
    seconds,
    rssMb: Number(/max_rss_kb=(\d+)/.exec(r.stderr)?.[1]) / 1024,
    summary: JSON.parse(r.stdout) as { added: number; failed: number },
  };
}

export async function benchPdf(): Promise<BenchResult> {
  const dir = benchDir('pdf');
  await mkdir(dir, { recursive: true });
  const long = join(dir, `long-${PAGES}.pdf`);
  if (!existsSync(long)) writeFileSync(long, await makeLongPdf(PAGES));
  await rm(join(dir, 'data'), { recursive: true, force: true });
  const big = ingest(long, join(dir, 'data'));
  if (big.summary.added !== 1) throw new Error(`the 1,000-page PDF did not ingest: ${JSON.stringify(big.summary)}`);

  // Every page's lines end in "<page>.<line>": search 100 of those phrases and check the cited page.
  const engine = await openEngine({ dataDir: join(dir, 'data') });
  let right = 0;
  const probes = 100;
  for (let i = 0; i < probes; i++) {
    const page = 1 + ((i * 397) % PAGES);
    const line = (i * 7) % 8; // the first lines of a page, before its first paragraph break
    const r = await engine.search({ query: `"${page} ${line}"`, mode: 'lexical', top: 1 });
    const c = r.results[0]?.citation;
    if (c?.kind === 'page' && c.page === page) right++;
  }
  engine.close();

  await rm(join(dir, 'data-real'), { recursive: true, force: true });
  const real = ingest(join(corporaDir(), 'pdf'), join(dir, 'data-real'));
  const db = openDb(join(dir, 'data-real', 'kb.sqlite'));
  const realPages = (
    db.prepare("SELECT coalesce(sum(page_count), 0) AS n FROM documents WHERE type = 'pdf' AND status = 'indexed'").get() as { n: number }
  ).n;
  db.close();
  return {
    name: 'pdf',
    lines: [
      `generated ${PAGES}-page PDF (38 lines a page, running header and footer): ${big.seconds.toFixed(1)} s in a fresh \`kb ingest\` process, ${(PAGES / big.seconds).toFixed(0)} pages/s, peak RSS ${big.rssMb.toFixed(0)} MB`,
      `page citations: ${right} of ${probes} phrases of known pages cited on their page`,
      `../shared/corpora/pdf (${real.summary.added} added, ${real.summary.failed} failed as expected: password-protected, empty, unreadable; ${realPages} pages): ${real.seconds.toFixed(1)} s, ${(realPages / real.seconds).toFixed(0)} pages/s, peak RSS ${real.rssMb.toFixed(0)} MB`,
    ],
    checks: [
      { what: 'text-layer PDF pages/s (1,000 pages, process start included)', value: PAGES / big.seconds, target: 40, better: 'higher' },
      { what: 'peak RSS ingesting the 1,000-page PDF', value: big.rssMb, target: 800, better: 'lower', unit: ' MB' },
      { what: 'phrases cited on the right page', value: (100 * right) / probes, target: 100, better: 'higher', unit: '%' },
    ],
  };
}
