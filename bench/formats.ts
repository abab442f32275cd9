// Structured-format ingest throughput (issue 19): Word files and saved web pages of ~20 KB of text
// each, generated (test/support/format-fixtures.ts) and read by a fresh engine with no embedding model,
// timed from the ingest call to its summary. Slides, books, workbooks and mail are reported alongside.
import { writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as F from '../test/support/format-fixtures.js';
import { openEngine } from '../src/worker/index.js';
import { freshDir, percentile, type BenchResult } from './util.js';

const TEXT_CHARS = 20_000;

/** Paragraphs of filler adding up to about n characters, a heading every eight. */
function paragraphs(n: number, seed: number): F.Para[] {
  const out: F.Para[] = [];
  let chars = 0;
  for (let i = 0; chars < n; i++) {
    if (i % 8 === 0) out.push({ text: `Section ${seed}.${i / 8 + 1}`, heading: 2 });
    const t = F.filler(5, seed * 1000 + i);
    out.push({ text: t });
    chars += t.length;
  }
  return out;
}

async function timeIngest(dir: string, data: string): Promise<{ seconds: number; added: number; failed: number }> {
  const engine = await openEngine({ dataDir: data });
  const t0 = performance.now();
  const s = await engine.ingest([dir]);
  const seconds = (performance.now() - t0) / 1000;
  engine.close();
  return { seconds, added: s.added, failed: s.failed };
}

export async function benchFormats(): Promise<BenchResult> {
  const root = await freshDir('formats');
  const make = async (name: string, count: number, write: (i: number, dir: string) => Promise<void>): Promise<string> => {
    const dir = join(root, name);
    await mkdir(dir);
    for (let i = 0; i < count; i++) await write(i, dir);
    return dir;
  };
  const docxDir = await make('docx', 200, async (i, d) =>
    writeFileSync(join(d, `report-${i}.docx`), await F.docx(paragraphs(TEXT_CHARS, i), { title: `Report ${i}` })),
  );
  const htmlDir = await make('html', 500, async (i, d) => {
    const ps = paragraphs(TEXT_CHARS, i + 7000);
    const sections: { heading: string; paras: string[] }[] = [];
    for (const p of ps) {
      if (p.heading) sections.push({ heading: p.text, paras: [] });
      else sections[sections.length - 1]!.paras.push(p.text);
    }
    // Half say where their content is (<article>); half leave it to Readability to find.
    const page = F.html({ title: `Page ${i}`, sections });
    writeFileSync(
      join(d, `page-${i}.html`),
      i % 2
        ? page
            .replace('<article>', '<div class="post-body">')
            .replace('</article>', '</div><div class="sidebar"><a href="/a">Related</a> <a href="/b">Popular</a></div>')
        : page,
    );
  });
  const others = {
    pptx: await make('pptx', 50, async (i, d) =>
      writeFileSync(
        join(d, `deck-${i}.pptx`),
        await F.pptx(
          Array.from({ length: 20 }, (_, s) => ({ title: `Slide ${s}`, body: [F.filler(3, i * 100 + s)], notes: F.filler(1, s) })),
        ),
      ),
    ),
    epub: await make('epub', 20, async (i, d) =>
      writeFileSync(
        join(d, `book-${i}.epub`),
        await F.epub(
          Array.from({ length: 20 }, (_, c) => ({
            title: `Chapter ${c + 1}`,
            paras: Array.from({ length: 20 }, (_, p) => F.filler(5, i * 10_000 + c * 100 + p)),
          })),
          { title: `Book ${i}` },
        ),
      ),
    ),
    xlsx: await make('xlsx', 20, async (i, d) =>
      writeFileSync(
        join(d, `sheet-${i}.xlsx`),
        await F.xlsx([
          {
            name: 'Data',
            rows: [
              ['Date', 'Item', 'Note'],
              ...Array.from({ length: 1000 }, (_, r) => [`2024-01-${(r % 28) + 1}`, `Item ${r}`, F.filler(1, i * 5000 + r)]),
            ],
          },
        ]),
      ),
    ),
    mbox: await make('mbox', 10, async (i, d) =>
      writeFileSync(
        join(d, `box-${i}.mbox`),
        F.mbox(
          Array.from({ length: 100 }, (_, m) =>
            F.eml({
              from: `a${m}@x.org`,
              to: 'b@x.org',
              subject: `Message ${m}`,
              date: 'Tue, 1 Oct 2024 10:00:00 +0000',
              id: `${i}.${m}@x.org`,
              body: F.filler(6, i * 1000 + m),
            }),
          ),
        ),
      ),
    ),
  };

  const docx = await timeIngest(docxDir, join(root, 'data-docx'));
  // Opening a hit: the rendition of a Word file at a cited paragraph, first time (read on a thread, not cached).
  const viewer = await openEngine({ dataDir: join(root, 'data-docx') });
  const opens: number[] = [];
  for (const d of (await viewer.list()).slice(0, 50)) {
    const t0 = performance.now();
    await viewer.view(d.doc_id, 'para=5', 'steady growth');
    opens.push(performance.now() - t0);
  }
  viewer.close();
  opens.sort((a, b) => a - b);
  const html = await timeIngest(htmlDir, join(root, 'data-html'));
  const lines = [
    `200 Word files of ~${TEXT_CHARS / 1000} KB text: ${docx.seconds.toFixed(2)} s, ${(docx.added / docx.seconds).toFixed(1)} files/s (${docx.failed} failed)`,
    `a Word hit opened in the viewer (rendition at #para=5, 50 files, first open each): p50 ${percentile(opens, 50).toFixed(1)} ms, p95 ${percentile(opens, 95).toFixed(1)} ms`,
    `500 web pages of ~${TEXT_CHARS / 1000} KB text (half found by their <article>, half by Readability): ${html.seconds.toFixed(2)} s, ${(html.added / html.seconds).toFixed(1)} pages/s (${html.failed} failed)`,
  ];
  for (const [name, dir] of Object.entries(others)) {
    const r = await timeIngest(dir, join(root, `data-${name}`));
    lines.push(`${name}: ${r.added} files in ${r.seconds.toFixed(2)} s, ${(r.added / r.seconds).toFixed(1)} files/s (${r.failed} failed)`);
  }
  return {
    name: 'formats',
    lines,
    checks: [
      { what: 'Word files/s (~20 KB text each, no embedding model)', value: docx.added / docx.seconds, target: 20, better: 'higher' },
      { what: 'web pages/s (~20 KB text each, no embedding model)', value: html.added / html.seconds, target: 50, better: 'higher' },
    ],
  };
}
