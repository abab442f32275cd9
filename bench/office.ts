// Files as office applications write them: LibreOffice (headless, when it is installed: Debian's
// libreoffice-writer-nogui, -calc-nogui, -impress-nogui) saves documents kb's generators do not —
// Word, OpenDocument text, EPUB, web pages, Excel, PowerPoint and OpenDocument slides — from sources
// whose text is known, with the things real documents hold: curly and straight apostrophes, hyphens,
// tabs and line breaks inside paragraphs, tables. Each 6-word phrase of a source is searched quoted;
// it counts when a hit in the right file cites a span whose text (`kb get`) holds the phrase.
// ≥ 98% in every format.
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { freshDir, type BenchResult, type Check } from './util.js';

const WORDS = (
  'harbour lantern meadow signal garden silver market pattern engine window theory river mountain ' +
  'careful gentle honest humble lively modest narrow polite quiet rapid steady tender vivid village ' +
  'weather animal bridge castle desert forest harvest instrument kitchen library machine network ' +
  'orchestra passenger question research science measure observe arrange balance collect deliver'
).split(' ');
const SPECIAL = ['we’re', 'it’s', "O'Reilly", 'don’t', 'well-known', 'read-only', "Sam'l", 'rock’n’roll', 'e-mail'];

function prose(seed: number, sentences: number): string {
  let x = seed;
  const next = (): number => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const out: string[] = [];
  for (let s = 0; s < sentences; s++) {
    const n = 9 + Math.floor(next() * 8);
    const w: string[] = [];
    for (let i = 0; i < n; i++)
      w.push(next() < 0.12 ? SPECIAL[Math.floor(next() * SPECIAL.length)]! : WORDS[Math.floor(next() * WORDS.length)]!);
    const t = w.join(' ');
    out.push(`${t[0]!.toUpperCase()}${t.slice(1)}.`);
  }
  return out.join(' ');
}

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const norm = (s: string): string => s.normalize('NFKC').replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim().toLowerCase();

/** 6-word phrases of a text, one every 5 words. */
function phrasesOf(text: string): string[] {
  const w = text.split(/\s+/).filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i + 6 <= w.length; i += 5)
    out.push(
      w
        .slice(i, i + 6)
        .join(' ')
        .replace(/[.,;:]+$/, ''),
    );
  return out;
}

function soffice(dir: string, to: string, file: string, filter?: string): void {
  execFileSync('soffice', ['--headless', ...(filter ? [`--infilter=${filter}`] : []), '--convert-to', to, '--outdir', dir, file], {
    stdio: 'pipe',
    timeout: 180_000,
    env: { ...process.env, HOME: dir },
  });
}

export async function benchOffice(): Promise<BenchResult> {
  if (spawnSync('soffice', ['--version']).status !== 0)
    return {
      name: 'office',
      lines: ['skipped: no LibreOffice here (apt-get install libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui)'],
      checks: [],
    };
  const root = await freshDir('office');
  const src = join(root, 'src');
  const out = join(root, 'docs');
  await mkdir(src);
  await mkdir(out);
  const texts = new Map<string, string[]>();
  // A report: headings, paragraphs (a tab and a line break inside some), a table.
  const paras = Array.from({ length: 24 }, (_, i) => prose(i + 1, 4));
  const rows = Array.from({ length: 8 }, (_, i) => [prose(100 + i, 1).slice(0, 60), prose(200 + i, 1).slice(0, 60)]);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Quarterly harbour report</title></head><body><h1>Quarterly harbour report</h1>${paras
    .map((p, i) => (i % 6 === 0 ? `<h2>Part ${i / 6 + 1}</h2>` : '') + `<p>${esc(p).replace(/\. /, i % 4 === 1 ? '.<br>' : '. ')}</p>`)
    .join('')}<table>${rows.map((r) => `<tr><td>${esc(r[0]!)}</td><td>${esc(r[1]!)}</td></tr>`).join('')}</table></body></html>`;
  writeFileSync(join(src, 'report.html'), html);
  const reportText = [...paras, ...rows.flat()];
  for (const to of ['docx', 'odt', 'epub', 'html:XHTML Writer File:UTF8']) {
    soffice(out, to, join(src, 'report.html'), 'HTML (StarWriter)');
  }
  for (const f of readdirSync(out)) if (f.startsWith('report.')) texts.set(f, reportText);
  // A workbook: a sheet of rows with a header.
  const sheet = [['Item', 'Note'], ...rows.map((r) => [r[0]!, r[1]!])];
  writeFileSync(join(src, 'ledger.csv'), sheet.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(',')).join('\n'));
  soffice(out, 'xlsx', join(src, 'ledger.csv'), 'CSV:44,34,76,1'); // comma, double quote, UTF-8, from line 1
  texts.set('ledger.xlsx', rows.flat());
  // A deck: flat OpenDocument slides (a tab and a line break inside paragraphs, a table on one slide),
  // saved by LibreOffice Impress as PowerPoint and as its own .odp.
  const slides = Array.from({ length: 6 }, (_, i) => ({
    title: `Slide about the ${WORDS[i]}`,
    body: [prose(300 + i, 2), prose(400 + i, 1)],
  }));
  const cell = (t: string): string => `<table:table-cell><text:p>${esc(t)}</text:p></table:table-cell>`;
  const frame = (y: number, inner: string): string =>
    `<draw:frame svg:x="1cm" svg:y="${y}cm" svg:width="24cm" svg:height="10cm">${inner}</draw:frame>`;
  const pages = slides.map((sl, i) => {
    const [a, b] = sl.body as [string, string];
    const cut = a.indexOf(' ', a.length / 2);
    const body = `<text:p>${esc(a.slice(0, cut))}<text:tab/>${esc(a.slice(cut + 1))}</text:p><text:p>${esc(b).replace(' ', '<text:line-break/>')}</text:p>`;
    const table =
      i === 2
        ? frame(
            12,
            `<table:table><table:table-column table:number-columns-repeated="2"/>${rows
              .slice(0, 3)
              .map((r) => `<table:table-row>${cell(r[0]!)}${cell(r[1]!)}</table:table-row>`)
              .join('')}</table:table>`,
          )
        : '';
    return `<draw:page draw:name="p${i + 1}">${frame(1, `<draw:text-box><text:p>${esc(sl.title)}</text:p></draw:text-box>`)}${frame(4, `<draw:text-box>${body}</draw:text-box>`)}${table}</draw:page>`;
  });
  const NS =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"';
  writeFileSync(
    join(src, 'deck.fodp'),
    `<?xml version="1.0" encoding="UTF-8"?><office:document ${NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>${pages.join('')}</office:presentation></office:body></office:document>`,
  );
  soffice(out, 'pptx', join(src, 'deck.fodp'));
  soffice(out, 'odp', join(src, 'deck.fodp'));
  const deckText = [...slides.flatMap((s) => s.body), ...rows.slice(0, 3).flat()];
  texts.set('deck.pptx', deckText);
  texts.set('deck.odp', deckText);

  const engine = await openEngine({
    dataDir: join(root, 'data'),
    config: { store_originals: 'reference', ocr: { enabled: false }, audio: { enabled: false } },
  });
  const lines: string[] = [];
  const checks: Check[] = [];
  try {
    const s = await engine.ingest([out]);
    lines.push(
      `LibreOffice ${execFileSync('soffice', ['--version'], { encoding: 'utf8' }).trim().split(' ')[1]}: ${s.added} files added, ${s.failed} failed${s.errors.length ? ` (${s.errors.map((e) => `${e.path.split('/').pop()}: ${e.code}`).join(', ')})` : ''}`,
    );
    for (const [file, text] of [...texts].sort()) {
      const phrases = text.flatMap(phrasesOf);
      let found = 0;
      const missed: string[] = [];
      for (const phrase of phrases) {
        // The same words are in several files here (one source, many formats): each file is asked alone.
        const r = await engine.search({ query: `"${phrase}"`, mode: 'lexical', top: 5, correct: false, path: `**/${file}` });
        const hit = r.results.find((h) => h.citation.path.endsWith(`/${file}`));
        const span = hit ? norm((await engine.get(hit.citation.uri, 100_000)).text) : '';
        if (hit && span.includes(norm(phrase))) found++;
        else missed.push(phrase);
      }
      const pct = (100 * found) / Math.max(1, phrases.length);
      lines.push(
        `${file.padEnd(20)} ${found}/${phrases.length} phrases found, cited and printed back (${pct.toFixed(1)}%)${missed.length ? `; missed e.g. “${missed.slice(0, 2).join('”, “')}”` : ''}`,
      );
      checks.push({
        what: `${file}: phrases found at the right unit and printed by kb get`,
        value: pct,
        target: 98,
        better: 'higher',
        unit: '%',
      });
    }
  } finally {
    engine.close();
  }
  return { name: 'office', lines, checks };
}
