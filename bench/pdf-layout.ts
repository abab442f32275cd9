// PDF reading order per layout class (fixtures/pdf-layout: 1–4 columns, mixed, sidebar, table,
// footnotes, landscape, rotated, emitted across columns): kb's page text against pdf.js's own text
// order and poppler's `pdftotext` in its default mode, by phrase recall, paragraph order and
// header/footer leakage; and page attribution of real phrase searches in an index of the fixtures.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../src/shared/config.js';
import { parsePdf } from '../src/worker/ingest/formats/pdf.js';
import { openEngine } from '../src/worker/index.js';
import { addScores, emptyScore, type PageScore, scorePage, type Truth, truthPhrases } from './layout-score.js';
import { freshDir, repoRoot, type BenchResult, type Check } from './util.js';

const FIXTURES = join(repoRoot, 'fixtures', 'pdf-layout');

/** kb's page texts, rebuilt from the chunks the real PDF parser emits (each knows its page span). */
export async function kbPages(data: Uint8Array): Promise<string[]> {
  const spans: { page: number; start: number; text: string }[] = [];
  await parsePdf({ data, name: 'x.pdf', chunking: defaultConfig().chunking, timeoutMs: 60_000 }, (chunks) => {
    for (const c of chunks)
      if (c.anchor.kind === 'page') spans.push({ page: c.anchor.page, start: c.anchor.char_start ?? 0, text: c.text });
  });
  const pages: string[] = [];
  for (const s of spans.sort((a, b) => a.page - b.page || a.start - b.start))
    pages[s.page - 1] = (pages[s.page - 1] ? pages[s.page - 1] + '\n\n' : '') + s.text;
  return Array.from(pages, (p) => p ?? '');
}

/** pdf.js's text items in the order the producer emitted them, a line break where pdf.js sees one. */
async function pdfjsPages(data: Uint8Array): Promise<string[]> {
  const lib = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = lib.getDocument({ data, disableFontFace: true, verbosity: 0 });
  const doc = await task.promise;
  const out: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    const content = await (await doc.getPage(n)).getTextContent();
    out.push(content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : '') : '')).join(''));
  }
  await task.destroy();
  return out;
}

function pdftotextPages(file: string): string[] | null {
  try {
    return execFileSync('pdftotext', ['-enc', 'UTF-8', file, '-'], { encoding: 'utf8' }).split('\f');
  } catch {
    return null;
  }
}

const pct = (n: number, d: number): number => (d === 0 ? 100 : (100 * n) / d);

function row(name: string, s: PageScore): string {
  return `${name.padEnd(10)} phrases ${pct(s.found, s.phrases).toFixed(1).padStart(5)}%  order ${pct(s.ordered, s.pairs).toFixed(1).padStart(5)}%  leaked ${s.leaked}/${s.furniture}`;
}

export async function benchPdfLayout(): Promise<BenchResult> {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json'))
    .sort();
  const lines: string[] = [];
  const checks: Check[] = [];
  const havePoppler = pdftotextPages(join(FIXTURES, files[0]!.replace(/\.json$/, '.pdf'))) !== null;
  if (!havePoppler) lines.push('pdftotext not found (apt-get install poppler-utils): its column is left out');

  // Page attribution: real phrase searches in one index of all the fixtures.
  const dir = await freshDir('pdf-layout');
  const engine = await openEngine({ dataDir: join(dir, 'data') });
  await engine.ingest(files.map((f) => join(FIXTURES, f.replace(/\.json$/, '.pdf'))));

  const totals = { kb: emptyScore(), pdfjs: emptyScore(), pdftotext: emptyScore() };
  let searched = 0;
  let hit = 0;
  let rightPage = 0;
  for (const f of files) {
    const truth = JSON.parse(readFileSync(join(FIXTURES, f), 'utf8')) as Truth;
    const pdf = join(FIXTURES, f.replace(/\.json$/, '.pdf'));
    const data = new Uint8Array(readFileSync(pdf));
    const outputs: Record<keyof typeof totals, string[] | null> = {
      kb: await kbPages(data.slice()),
      pdfjs: await pdfjsPages(data.slice()),
      pdftotext: pdftotextPages(pdf),
    };
    lines.push(`${truth.name} (${truth.layout}, ${truth.producer}, ${truth.pages.length} pages)`);
    for (const [tool, pages] of Object.entries(outputs) as [keyof typeof totals, string[] | null][]) {
      if (!pages) continue;
      let s = emptyScore();
      for (const tp of truth.pages) s = addScores(s, scorePage(pages[tp.page - 1] ?? '', tp));
      totals[tool] = addScores(totals[tool], s);
      lines.push(`  ${row(tool, s)}`);
      if (tool === 'kb') {
        checks.push({ what: `${truth.name}: phrase recall`, value: pct(s.found, s.phrases), target: 97, better: 'higher', unit: '%' });
        checks.push({ what: `${truth.name}: paragraph order`, value: pct(s.ordered, s.pairs), target: 95, better: 'higher', unit: '%' });
        checks.push({ what: `${truth.name}: header/footer lines leaked`, value: s.leaked, target: 0, better: 'lower' });
      }
    }
    const kbScore = outputs.kb!;
    const pop = outputs.pdftotext;
    if (pop) {
      let a = emptyScore();
      let b = emptyScore();
      for (const tp of truth.pages) {
        a = addScores(a, scorePage(kbScore[tp.page - 1] ?? '', tp));
        b = addScores(b, scorePage(pop[tp.page - 1] ?? '', tp));
      }
      checks.push({
        what: `${truth.name}: phrase recall, kb − pdftotext`,
        value: pct(a.found, a.phrases) - pct(b.found, b.phrases),
        target: 0,
        better: 'higher',
        unit: ' points',
      });
      checks.push({
        what: `${truth.name}: paragraph order, kb − pdftotext`,
        value: pct(a.ordered, a.pairs) - pct(b.ordered, b.pairs),
        target: 0,
        better: 'higher',
        unit: ' points',
      });
    }
    // Every eighth phrase, searched as a phrase: does the hit cite this file's right page?
    const ps = truthPhrases(truth).filter((_, i) => i % 8 === 0);
    for (const p of ps) {
      searched++;
      const r = await engine.search({ query: `"${p.phrase}"`, mode: 'lexical', top: 1 });
      const c = r.results[0]?.citation;
      if (!c) continue;
      hit++;
      if (c.kind === 'page' && c.path === pdf && c.page === p.page) rightPage++;
    }
  }
  engine.close();
  lines.push('all classes');
  for (const [tool, s] of Object.entries(totals)) if (tool !== 'pdftotext' || havePoppler) lines.push(`  ${row(tool, s)}`);
  lines.push(`phrase searches: ${hit} of ${searched} found, ${rightPage} of them cited on the right page`);
  checks.push({ what: 'phrase searches cited on the right page', value: pct(rightPage, hit), target: 100, better: 'higher', unit: '%' });
  return { name: 'pdf-layout', lines, checks };
}
