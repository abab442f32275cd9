// PDF reading order on the layout ground truth (fixtures/pdf-layout, typeset by pdfLaTeX, drawn by
// pdf-lib and set by ReportLab — reports, books with chapter heads, journals, memos with margin stamps,
// transcripts with printed page numbers: 1–4 columns, full width mixed with columns, a sidebar, a table between column blocks,
// footnotes, running headers with page numbers on alternating sides, a landscape page, pages turned
// by 90° and 270°, columns emitted across the page): every paragraph's words in the page text, in
// order, and no header or footer. Plus the hyphenation rule and independence from emission order.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scorePage, type Truth } from '../bench/layout-score.js';
import { kbPages } from '../bench/pdf-layout.js';
import { Vocabulary } from '../src/worker/ingest/formats/pdf-hyphens.js';
import { fragments, joinLine, paragraphs, readingOrder, type TextItem } from '../src/worker/ingest/formats/pdf-layout.js';
import { repoRoot } from './helpers.js';

const FIXTURES = join(repoRoot, 'fixtures', 'pdf-layout');
const names = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.replace(/\.json$/, ''))
  .sort();

describe('PDF layout', () => {
  it('has a ground truth for every layout class the issue names', () => {
    expect(names).toEqual(
      expect.arrayContaining([
        'one-column',
        'two-column',
        'three-column',
        'four-column',
        'mixed',
        'sidebar',
        'table',
        'footnotes',
        'landscape',
        'rotated',
        'interleaved',
        'short-memo',
        'short-minutes',
        'journal-heads',
        'journal-two-column',
        'latex-heads',
      ]),
    );
  });

  it.each(names)('%s: every phrase found, paragraphs in order, no header or footer', async (name) => {
    const truth = JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as Truth;
    const pages = await kbPages(new Uint8Array(readFileSync(join(FIXTURES, `${name}.pdf`))));
    for (const tp of truth.pages) {
      const s = scorePage(pages[tp.page - 1] ?? '', tp);
      expect(s.found / s.phrases, `page ${tp.page}: phrase recall`).toBeGreaterThanOrEqual(0.97);
      expect(s.pairs === 0 ? 1 : s.ordered / s.pairs, `page ${tp.page}: paragraph order`).toBeGreaterThanOrEqual(0.95);
      expect(s.leaked, `page ${tp.page}: header/footer lines`).toBe(0);
    }
  });

  it('reads the same text whatever order the producer emitted the items in', () => {
    // Three columns of six lines, each line its own item, emitted in three different orders.
    const items: TextItem[] = [];
    for (let c = 0; c < 3; c++) {
      for (let l = 0; l < 6; l++)
        items.push({
          str: `col${c} line${l} words to fill the column width here`,
          x: 50 + c * 180,
          y: 700 - l * 12,
          width: 165,
          height: 10,
        });
    }
    const read = (xs: TextItem[]): string =>
      paragraphs(readingOrder(fragments(xs)))
        .map((p) => p.text)
        .join(' | ');
    const expected = read(items);
    expect(expected.indexOf('col0 line5')).toBeLessThan(expected.indexOf('col1 line0'));
    expect(expected.indexOf('col1 line5')).toBeLessThan(expected.indexOf('col2 line0'));
    const across = [...items].sort((a, b) => b.y - a.y || a.x - b.x);
    const reversed = [...items].reverse();
    expect(read(across)).toBe(expected);
    expect(read(reversed)).toBe(expected);
  });

  it('keeps a table row together, in row order, when the band is a table', () => {
    const items: TextItem[] = [];
    ['alpha beta', 'gamma delta', 'epsilon zeta', 'eta theta'].forEach((row, r) => {
      row.split(' ').forEach((cell, c) => items.push({ str: `${cell}${r}`, x: 72 + c * 200, y: 600 - r * 14, width: 40, height: 10 }));
    });
    const text = paragraphs(readingOrder(fragments(items))).map((p) => p.text);
    expect(text).toEqual(['alpha0 beta0', 'gamma1 delta1', 'epsilon2 zeta2', 'eta3 theta3']);
  });

  it('joins a word the typesetter hyphenated, and keeps the hyphen of a compound the document writes with one', () => {
    const v = new Vocabulary();
    const para = joinLine(joinLine('The well-', 'known method, a docu-'), 'ment about it.');
    v.add(para);
    v.add('It is well-known elsewhere in the document.');
    expect(v.settle(para)).toBe('The well-known method, a document about it.');
    // Where the document never writes the hyphenated form, the hyphen was the typesetter's.
    const w = new Vocabulary();
    const q = joinLine('an inter-', 'national range');
    w.add(q);
    expect(w.settle(q)).toBe('an international range');
    // Where both spellings occur, the joined one wins (a line-end hyphen is usually the typesetter's).
    const z = new Vocabulary();
    const r = joinLine('a data-', 'base of facts');
    z.add(r);
    z.add('the database and the data-base');
    expect(z.settle(r)).toBe('a database of facts');
  });
});

describe('PDF furniture and columns a walk found (issue 49)', () => {
  it('reads the right column under a large heading in the left one as its own lines, words apart', async () => {
    const { PDFDocument, StandardFonts } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([595, 842]);
    // As reportlab lays a two-frame page: the title in the left frame, 18 pt, between the first
    // lines of the right frame, 10 pt on a 12 pt leading.
    page.drawText('Water Quality Report for', { x: 65, y: 767.9, size: 18, font });
    page.drawText('the Ashby Catchment', { x: 76, y: 745.9, size: 18, font });
    const right = [
      'reservoir is fed by the Ashby brook and two smaller',
      'streams that rise on the moor above the village.',
      'Samples were taken weekly through the spring.',
    ];
    right.forEach((line, i) => page.drawText(line, { x: 313.6, y: 775.9 - 12 * i, size: 10, font }));
    for (let i = 0; i < 30; i++) {
      page.drawText(`Left column line ${i} about the weir and the mill race.`, { x: 56, y: 715.9 - 12 * i, size: 10, font });
      page.drawText(`Right column line ${i} about the sluice and the meadow.`, { x: 313.6, y: 739.9 - 12 * i, size: 10, font });
    }
    const [text] = await kbPages(await doc.save());
    expect(text).toContain('two smaller streams that rise on the moor above the village. Samples were taken weekly');
    expect(text).not.toMatch(/smallerstreams/);
  });

  it('drops a stamp set up the margin (arXiv, a production line) and reads a turned table in the body', async () => {
    const { PDFDocument, StandardFonts, degrees } = await import('pdf-lib');
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (let n = 0; n < 2; n++) {
      const page = doc.addPage([612, 792]);
      for (let i = 0; i < 40; i++)
        page.drawText(`Body line ${i} of page ${n + 1} on the kestrel survey.`, { x: 90, y: 720 - 14 * i, size: 11, font });
      page.drawText('arXiv:2411.01234v2 [cs.IR] 28 Nov 2026', { x: 36, y: 230, size: 14, font, rotate: degrees(90) });
      if (n === 1) page.drawText('Turned note: the merlin count doubled.', { x: 300, y: 200, size: 9, font, rotate: degrees(90) });
    }
    const pages = await kbPages(await doc.save());
    expect(pages[0]).toContain('Body line 39 of page 1 on the kestrel survey.');
    for (const p of pages) expect(p).not.toMatch(/arXiv|cs\.IR/);
    expect(pages[1]).toContain('the merlin count doubled');
  });
});
