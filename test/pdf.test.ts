// PDFs: page-exact citations on PDFs whose contents are known (made with pdf-lib), reading order on
// a real two-column LaTeX paper, bookmarks as section labels, and every way a PDF can be bad.
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SearchResultSchema } from '../src/shared/wire.js';
import { PDFDocument } from 'pdf-lib';
import { CJK_FONTS, makeLongPdf, makePdf, unembeddedCjkPdf } from './support/make-test-pdf.js';
import { corporaDir, engineIn, kb, searchDuringIngest, tempDir } from './helpers.js';

const corpora = corporaDir();
if (!corpora) console.warn('real-PDF tests skipped: ../shared/corpora is not here; set KB_CORPORA');
const real = (rel: string): string => join(corpora ?? '', 'pdf', rel);

const MARKERS = ['zebra', 'quokka', 'narwhal', 'axolotl', 'pangolin', 'okapi', 'tapir', 'wombat'];

/** Eight pages, each naming its own marker animal; page 3 in two columns, page 4 with hyphenated words. */
async function knownPdf(): Promise<Uint8Array> {
  return makePdf({
    title: 'Field Guide',
    header: 'ACME Quarterly Report',
    footer: 'Page {n} of {total}',
    pages: MARKERS.map((m, i) => {
      const n = i + 1;
      if (n === 3) {
        return {
          lines: ['Two columns follow on this page.'],
          columns: [
            ['The left column begins the story', `of the ${m} that lived by the river`, 'and ends its first half here.'],
            ['The right column continues it:', 'the animal crossed at dawn', 'and was never seen again.'],
          ],
        };
      }
      if (n === 4)
        return { lines: [`The ${m} shows an inter-`, 'national range of habitats and', 'a remark-', 'able appetite for leaves.'] };
      return { lines: [`Chapter ${n} is about the ${m} and nothing else.`, '', `The ${m} marker appears on page ${n} only.`] };
    }),
  });
}

describe('PDF ingest', () => {
  it('cites every phrase on the page it comes from, and drops running headers, footers and page numbers', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'guide.pdf'), await knownPdf());
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([join(dir, 'guide.pdf')]);
    expect(s).toMatchObject({ added: 1, failed: 0 });
    let right = 0;
    for (const [i, m] of MARKERS.entries()) {
      const r = await engine.search({ query: m, mode: 'lexical', top: 1 });
      const c = r.results[0]!.citation;
      expect(c.kind).toBe('page');
      if (c.kind === 'page' && c.page === i + 1) right++;
      expect(c.uri).toBe(`file://${join(dir, 'guide.pdf')}#page=${i + 1}`);
    }
    expect(right / MARKERS.length).toBe(1);

    const doc = await engine.inspectDoc(join(dir, 'guide.pdf'));
    expect(doc.document).toMatchObject({ type: 'pdf', title: 'Field Guide', page_count: 8 });
    for (const c of doc.chunks) {
      expect(c.text).not.toMatch(/ACME Quarterly Report|Page \d of 8/);
      const a = c.anchor as { kind: string; char_start: number; char_end: number };
      expect(a.kind).toBe('page');
      expect(a.char_end - a.char_start).toBe(c.text.length);
    }
    const text = doc.chunks.map((c) => c.text).join('\n');
    // Two columns read left then right; words hyphenated at a line end are whole again.
    expect(text).toContain('The left column begins the story of the narwhal that lived by the river and ends its first half here.');
    expect(text).toMatch(/and ends its first half here\.\s+The right column continues it: the animal crossed at dawn/);
    expect(text).toContain('The axolotl shows an international range of habitats and a remarkable appetite for leaves.');
  });

  it('shows "file · p. N" in human output and the page in JSON', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'guide.pdf'), await knownPdf());
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'guide.pdf')], { env }).code).toBe(0);
    const human = kb(['search', 'pangolin', '--mode', 'lexical'], { env });
    expect(human.stdout).toContain('guide.pdf · p. 5');
    const json = SearchResultSchema.parse(kb(['search', 'pangolin', '--json'], { env }).json());
    expect(json.results[0]!.citation).toMatchObject({ kind: 'page', page: 5 });
    const inspected = kb(['inspect', 'doc', join(dir, 'guide.pdf')], { env }).json();
    expect(inspected).toMatchObject({ document: { type: 'pdf', page_count: 8 }, ocr_pages: [] });
  });

  it('answers searches while a long PDF is being read', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'long.pdf'), await makeLongPdf(400));
    const engine = await engineIn(join(dir, 'data'));
    // A search asked as soon as the first window of pages is in (the ingest's progress says so).
    const r = await searchDuringIngest(engine, [join(dir, 'long.pdf')], (p) => p.pages !== undefined, {
      query: 'boundary',
      mode: 'lexical',
      top: 5,
    });
    expect(r.summary.added).toBe(1);
    // Its first pages were searchable before the last ones were read.
    expect(r.answeredFirst).toBe(true);
    expect(r.found).toBeGreaterThan(0);
    const pages = r.progress.flatMap((p) => (p.pages === undefined ? [] : [p.pages]));
    expect(pages[0]).toBeLessThan(400);
    expect(pages.at(-1)).toBe(400);
    expect((await engine.inspectDoc(join(dir, 'long.pdf'))).document.page_count).toBe(400);
  });

  it("reads CJK text in a font the PDF does not embed (through pdf.js's CMaps), and finds it", async () => {
    // ReportLab's CID fonts, and many a Japanese or Chinese producer: the text is codes of a
    // predefined CMap. Without the CMaps, pdf.js gave such a page no text at all.
    const dir = await tempDir();
    writeFileSync(join(dir, 'tokyo.pdf'), unembeddedCjkPdf(['東京の電車はいつも混んでいる', '日本語の文書'], CJK_FONTS.japanese));
    writeFileSync(join(dir, 'beijing.pdf'), unembeddedCjkPdf(['北京的地铁每天都很拥挤', '上海的公共汽车也是一样'], CJK_FONTS.chinese));
    // A title page of five characters is text, not a scan to OCR: a CJK character counts as a word.
    writeFileSync(join(dir, 'title.pdf'), unembeddedCjkPdf(['売上報告書'], CJK_FONTS.japanese));
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([dir]);
    expect(s, JSON.stringify(s.errors)).toMatchObject({ added: 3, failed: 0 });
    const title = await engine.inspectDoc(join(dir, 'title.pdf'));
    expect(title.chunks.map((c) => c.text)).toEqual(['売上報告書']);
    expect(title.ocr_pages).toEqual([]);
    expect((await engine.inspectDoc(join(dir, 'tokyo.pdf'))).chunks.map((c) => c.text).join('\n')).toMatch(
      /東京の電車はいつも混んでいる\s+日本語の文書/,
    );
    expect((await engine.inspectDoc(join(dir, 'beijing.pdf'))).chunks.map((c) => c.text).join('')).toMatch(
      /北京的地铁每天都很拥挤\s*上海的公共汽车也是一样/,
    );
    const hit = (await engine.search({ query: '電車', mode: 'lexical', top: 1 })).results[0]!.citation;
    expect(hit).toMatchObject({ kind: 'page', page: 1, path: join(dir, 'tokyo.pdf') });
    expect((await engine.search({ query: '地铁', mode: 'lexical', top: 1 })).results[0]!.citation.path).toBe(join(dir, 'beijing.pdf'));
  });

  it.skipIf(!corpora)('reads a two-column LaTeX paper column by column', async () => {
    const engine = await engineIn();
    await engine.ingest([real('py-pdf-sample-files/026-latex-multicolumn/multicolumn.pdf')]);
    const doc = await engine.inspectDoc(real('py-pdf-sample-files/026-latex-multicolumn/multicolumn.pdf'));
    expect(doc.document).toMatchObject({ title: 'Two-Column Document with Lorem Ipsum', page_count: 3 });
    const text = doc.chunks.map((c) => c.text).join('\n');
    expect(text).toContain(
      'This is a sample document with two columns filled with Lorem Ipsum text. Lorem ipsum dolor sit amet, consectetuer adipiscing elit. Ut purus elit, vestibulum ut, placerat ac, adipiscing vitae, felis.',
    );
  });

  it.skipIf(!corpora)('labels chunks with the bookmark section they are in', async () => {
    const engine = await engineIn();
    const file = real('py-pdf-sample-files/006-pdflatex-outline/pdflatex-outline.pdf');
    await engine.ingest([file]);
    const chunks = (await engine.inspectDoc(file)).chunks;
    const bar = chunks.find((c) => c.text.startsWith('2 Bar'));
    expect(bar?.heading).toBe('Bar');
    expect(chunks.find((c) => c.text.startsWith('4 Foo'))?.heading).toBe('Foo');
    expect(new Set(chunks.map((c) => c.heading))).toEqual(new Set(['', 'Foo', 'Bar', 'Baz']));
  });
});

describe('bad PDFs', () => {
  it.skipIf(!corpora)('each fails clearly on its own; the rest of the batch goes on', async () => {
    const dir = await tempDir();
    const good = join(dir, 'good.pdf');
    writeFileSync(good, await knownPdf());
    copyFileSync(real('py-pdf-sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf'), join(dir, 'locked.pdf'));
    copyFileSync(real('pdfplumber/empty.pdf'), join(dir, 'empty.pdf'));
    const bytes = readFileSync(real('pdfplumber/nics-background-checks-2015-11.pdf'));
    writeFileSync(join(dir, 'truncated.pdf'), bytes.subarray(0, Math.floor(bytes.length / 3)));
    writeFileSync(join(dir, 'fake.pdf'), 'this is plain text pretending to be a PDF');
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([dir]);
    const codeOf = (name: string): string | undefined => s.errors.find((e) => e.path === join(dir, name))?.code;
    expect(s.added).toBe(1);
    expect(codeOf('locked.pdf')).toBe('ENCRYPTED');
    expect(s.errors.find((e) => e.path.endsWith('locked.pdf'))?.message).toMatch(/password/);
    expect(codeOf('empty.pdf')).toBe('EMPTY');
    expect(codeOf('fake.pdf')).toBe('PARSE_FAILED');
    expect(['PARSE_FAILED', 'EMPTY']).toContain(codeOf('truncated.pdf'));
    expect((await engine.list()).find((d) => d.path.endsWith('locked.pdf'))).toMatchObject({ type: 'pdf', status: 'failed' });
    expect((await engine.search({ query: 'quokka', mode: 'lexical' })).results).toHaveLength(1);
  });

  it('says a PDF with no pages or no text is empty', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'nothing.pdf'), await (await PDFDocument.create()).save());
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([join(dir, 'nothing.pdf')]);
    // pdf.js reads a page-less file as one blank page: nothing to read, even by OCR.
    expect(s.errors).toEqual([{ path: join(dir, 'nothing.pdf'), code: 'EMPTY', message: expect.stringMatching(/no text found/) }]);
    expect((await engine.list())[0]!.error).toMatch(/^EMPTY/);
  });

  it('keeps the last good version when a PDF is replaced by a broken one', async () => {
    const dir = await tempDir();
    const file = join(dir, 'guide.pdf');
    writeFileSync(file, await knownPdf());
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([file]);
    const good = readFileSync(file);
    writeFileSync(file, good.subarray(0, 400));
    const s = await engine.ingest([file]);
    expect(s.failed).toBe(1);
    const r = await engine.search({ query: 'wombat', mode: 'lexical' });
    expect(r.results[0]!.citation).toMatchObject({ kind: 'page', page: 8 });
    expect((await engine.list())[0]!.error).toMatch(/^(PARSE_FAILED|EMPTY)/);
  });

  it('gives up on a PDF that takes longer than the time limit', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'guide.pdf'), await knownPdf());
    const engine = await engineIn(join(dir, 'data'), { ingest: { pdf_timeout_s: 0.000001 } });
    const s = await engine.ingest([join(dir, 'guide.pdf')]);
    expect(s.errors[0]).toMatchObject({ code: 'TIMEOUT', message: expect.stringMatching(/pdf_timeout_s/) });
    expect((await engine.list())[0]!.chunks).toBe(0);
  });
});

describe('a PDF’s title', () => {
  it('is the file’s name, not what a producer left in the metadata (a file name, an app default, a number)', async () => {
    const { metaTitle } = await import('../src/worker/ingest/formats/pdf.js');
    for (const junk of [
      '10811.exe',
      'C:\\jobs\\report.qxd',
      'Microsoft Word - memo.doc',
      'Document1',
      'Presentation 2',
      '12345',
      'untitled',
      '3f2a9c0d4b5e6f7a8b9c',
      '88300 162..177',
      '905_Precinct_NoOU',
      '(anonymous)',
      '(unspecified)',
    ])
      expect(metaTitle({ Title: junk }), junk).toBeNull();
    for (const real of ['Annual Report 2024', 'Node.js in Action', 'NICS Firearm Background Checks'])
      expect(metaTitle({ Title: real })).toBe(real);
    expect(metaTitle({ Title: 'imagemagick-lzw\u0000' })).toBe('imagemagick-lzw');
    const dir = await tempDir();
    const doc = await PDFDocument.create();
    doc.setTitle('10811.exe');
    const page = doc.addPage([612, 792]);
    const font = await doc.embedFont('Helvetica');
    page.drawText('Minutes of the harbour meeting, read and agreed.', { x: 72, y: 700, size: 11, font });
    writeFileSync(join(dir, 'harbour-minutes.pdf'), await doc.save());
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'harbour-minutes.pdf')]);
    expect((await engine.list())[0]!.title).not.toBe('10811.exe');
    expect((await engine.list())[0]!.title).toMatch(/harbour/i);
  });
});
