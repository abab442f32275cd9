// OCR with tesseract.js and its local language data (the @tesseract.js-data/eng package): images cited
// by region in the image as viewers show it, scanned PDF pages cited by page, the OCR pass after the
// text layer, cancellation that resumes, and OCR turned off.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { wordAccuracy } from '../src/worker/eval/metrics.js';
import { raster } from '../src/worker/ingest/ocr/raster.js';
import { corporaDir, engineIn, tempDir } from './helpers.js';
import { TESTOCR_TEXT } from './ocr-truth.js';

const corpora = corporaDir();
if (!corpora) console.warn('OCR tests skipped: ../shared/corpora (the test images) is not here; set KB_CORPORA');
const image = (name: string): string => join(corpora ?? '', 'images', 'tesseract.js', name);

/** Page 1 has a text layer; page 2 is a picture of testocr.png with only a stamped page number as text. */
async function scannedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText('Cover page with a real text layer about herons.', { x: 72, y: 700, size: 12, font });
  const png = await doc.embedPng(readFileSync(image('testocr.png')));
  const page = doc.addPage([612, 792]);
  const w = 500;
  page.drawImage(png, { x: 56, y: 400, width: w, height: (w * png.height) / png.width });
  // Scanners stamp a page number as text: that alone is not a usable text layer.
  page.drawText('- 2 -', { x: 296, y: 30, size: 9, font });
  return doc.save();
}

describe.skipIf(!corpora)('OCR', () => {
  it('reads an image into paragraph chunks cited by their boxes, with confidence', async () => {
    const engine = await engineIn();
    const s = await engine.ingest([image('testocr.png')]);
    expect(s).toMatchObject({ added: 1, ocr: { pages: 1, failed: 0, pending: 0 } });
    const doc = await engine.inspectDoc(image('testocr.png'));
    expect(doc.document.type).toBe('image');
    expect(doc.ocr_pages).toEqual([{ page: 1, status: 'done', confidence: expect.any(Number), error: null }]);
    const text = doc.chunks.map((c) => c.text).join(' ');
    expect(wordAccuracy(TESTOCR_TEXT, text)).toBeGreaterThanOrEqual(0.95);
    const r = await engine.search({ query: 'quick brown dog', mode: 'lexical', top: 1 });
    const c = r.results[0]!.citation;
    expect(c).toMatchObject({ kind: 'region', confidence: expect.any(Number) });
    if (c.kind !== 'region') return;
    // Inside the 640 × 480 image, and a real box.
    expect(c.x + c.w).toBeLessThanOrEqual(640);
    expect(c.y + c.h).toBeLessThanOrEqual(480);
    expect(c.w * c.h).toBeGreaterThan(100 * 20);
    expect(c.uri).toBe(`file://${image('testocr.png')}#xywh=${c.x},${c.y},${c.w},${c.h}`);
  });

  it('reads WebP too (converted to PNG on a parse thread)', async () => {
    const { loadImage, createCanvas } = await import('@napi-rs/canvas');
    const img = await loadImage(readFileSync(image('testocr.png')));
    const canvas = createCanvas(img.width, img.height);
    canvas.getContext('2d').drawImage(img, 0, 0);
    const dir = await tempDir();
    writeFileSync(join(dir, 'page.webp'), canvas.toBuffer('image/webp'));
    const engine = await engineIn(join(dir, 'data'));
    const s = await engine.ingest([dir]);
    expect(s).toMatchObject({ added: 1, ocr: { pages: 1 } });
    const text = (await engine.inspectDoc(join(dir, 'page.webp'))).chunks.map((c) => c.text).join(' ');
    expect(wordAccuracy(TESTOCR_TEXT, text)).toBeGreaterThanOrEqual(0.95);
  });

  it('cites a photo with an EXIF orientation in the frame viewers show it in', async () => {
    const engine = await engineIn();
    await engine.ingest([image('simple-90.jpg'), image('simple.png')]);
    const rotated = (await engine.inspectDoc(image('simple-90.jpg'))).chunks[0]!;
    const upright = (await engine.inspectDoc(image('simple.png'))).chunks[0]!;
    expect(rotated.text).toBe('Tesseract.js');
    const a = rotated.anchor as { x: number; y: number; w: number; h: number };
    const b = upright.anchor as { x: number; y: number; w: number; h: number };
    // Stored 180 × 320 with orientation 6, shown turned 90° clockwise: 320 × 180, as simple.png is. The
    // word lies across the picture as shown, so its box does too, where simple.png's is.
    expect(a.w).toBeGreaterThan(a.h);
    for (const k of ['x', 'y', 'w', 'h'] as const) expect(Math.abs(a[k] - b[k]), k).toBeLessThanOrEqual(8);
  });

  it('sets a page scanned sideways upright (orientation detection) and cites boxes on the image as it is', async () => {
    const { createCanvas, loadImage } = await import('@napi-rs/canvas');
    const img = await loadImage(readFileSync(image('testocr.png')));
    const canvas = createCanvas(img.height, img.width); // 480 × 640: the text now runs top to bottom
    const g = canvas.getContext('2d');
    g.translate(img.height, 0);
    g.rotate(Math.PI / 2);
    g.drawImage(img, 0, 0);
    const dir = await tempDir();
    writeFileSync(join(dir, 'sideways.png'), canvas.toBuffer('image/png'));
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'sideways.png')]);
    const doc = await engine.inspectDoc(join(dir, 'sideways.png'));
    expect(wordAccuracy(TESTOCR_TEXT, doc.chunks.map((c) => c.text).join(' '))).toBeGreaterThanOrEqual(0.95);
    for (const c of doc.chunks) {
      const a = c.anchor as { x: number; y: number; w: number; h: number };
      // Boxes of horizontal lines turned on their side: taller than wide, inside the 480 × 640 image.
      expect(a.h).toBeGreaterThan(a.w);
      expect(a.x + a.w).toBeLessThanOrEqual(480);
      expect(a.y + a.h).toBeLessThanOrEqual(640);
    }
  });

  it('OCRs only the PDF pages that have no text, after the text layer, and cites them by page', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'scan.pdf'), await scannedPdf());
    const engine = await engineIn(join(dir, 'data'));
    const phases: string[] = [];
    const s = await engine.ingest([join(dir, 'scan.pdf')], { onProgress: (p) => phases.push(p.phase) });
    expect(s).toMatchObject({ added: 1, ocr: { pages: 1 } });
    expect(phases.indexOf('ocr')).toBeGreaterThan(phases.lastIndexOf('ingest'));
    const doc = await engine.inspectDoc(join(dir, 'scan.pdf'));
    expect(doc.document.page_count).toBe(2);
    expect(doc.ocr_pages).toEqual([{ page: 2, status: 'done', confidence: expect.any(Number), error: null }]);
    const hit = (await engine.search({ query: 'quick brown dog', mode: 'lexical', top: 1 })).results[0]!;
    expect(hit.citation).toMatchObject({ kind: 'page', page: 2, uri: `file://${join(dir, 'scan.pdf')}#page=2` });
    // Where on the scanned page the passage stands (a viewer has no text layer to find it in): inside the
    // picture, drawn 56–556 pt across and from 392 pt down on a 612 × 792 pt page.
    if (hit.citation.kind !== 'page' || !hit.citation.box) throw new Error(`no box: ${JSON.stringify(hit.citation)}`);
    const { x, y, w, h } = hit.citation.box;
    expect(x).toBeGreaterThanOrEqual(56 / 612 - 0.01);
    expect(x + w).toBeLessThanOrEqual(556 / 612 + 0.01);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(y + h).toBeLessThanOrEqual(392 / 792 + 0.01);
    expect(w * h).toBeGreaterThan(0.02);
    const page2 = doc.chunks
      .filter((c) => (c.anchor as { page: number }).page === 2)
      .map((c) => c.text)
      .join(' ');
    expect(wordAccuracy(TESTOCR_TEXT, page2)).toBeGreaterThanOrEqual(0.9);
    expect((await engine.search({ query: 'herons', mode: 'lexical' })).results[0]!.citation).toMatchObject({ page: 1 });
  });

  it('can be cancelled: it says what it stopped, and leaves no image half-read (none waits for an OCR that never comes)', async () => {
    const dir = await tempDir();
    for (const n of ['a', 'b', 'c']) writeFileSync(join(dir, `${n}.png`), readFileSync(image('simple.png')));
    writeFileSync(join(dir, 'd.png'), readFileSync(image('testocr.png')));
    const engine = await engineIn(join(dir, 'data'));
    const ctl = new AbortController();
    const finished: string[] = [];
    const first = await engine.ingest([dir], {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.finished) finished.push(`${p.finished.path.slice(dir.length + 1)} ${p.finished.outcome}`);
        if (p.phase === 'ocr' && p.done === 1) ctl.abort();
      },
    });
    // Each image was listed as waiting for its text, never as added before OCR read it.
    expect(finished).toEqual(['a.png waiting', 'b.png waiting', 'c.png waiting', 'd.png waiting']);
    // Cancelled as the second image was being read: that one is finished, the last two are not touched.
    expect(first).toMatchObject({ cancelled: true, added: 2, not_read: 2 });
    expect([...(first.not_read_paths ?? [])].sort()).toEqual([join(dir, 'c.png'), join(dir, 'd.png')]);
    // The stored copy of what was taken out went with it (a, b and c are the same image: its copy stays).
    expect(readdirSync(join(dir, 'data', 'blobs'), { recursive: true }).filter((f) => String(f).length > 60)).toHaveLength(1);
    expect((await engine.list()).map((d) => [d.path.slice(dir.length + 1), d.status])).toEqual([
      ['a.png', 'indexed'],
      ['b.png', 'indexed'],
    ]);
    const second = await engine.ingest([dir]);
    expect(second).toMatchObject({ added: 2, unchanged: 2, ocr: { pages: 2, pending: 0 } });
    expect((await engine.search({ query: 'quick brown dog', mode: 'lexical' })).results[0]!.citation.path).toBe(join(dir, 'd.png'));
  });

  it('reads what waits for OCR by itself while an engine keeps up: at its start, and when the OCR languages change', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'a.png'), readFileSync(image('testocr.png')));
    writeFileSync(join(dir, 'b.png'), readFileSync(image('simple.png')));
    const data = join(dir, 'data');
    // A one-shot engine (as kb ingest is) with no data for its OCR language: the pages wait.
    const once = await engineIn(data, { ocr: { languages: 'xyz' } });
    expect((await once.ingest([join(dir, 'a.png')])).ocr).toMatchObject({ pending: 1 });
    once.close();
    // A long-lived engine (the app, kb serve, kb watch) with English: it reads them without being asked.
    const app = await engineIn(data, {}, {});
    const events: string[] = [];
    const done = new Promise<void>((resolve) =>
      app.keepUp((e) => {
        events.push(`${e.task} ${e.phase}`);
        if (e.phase === 'done') resolve();
      }),
    );
    await done;
    expect(events).toContain('ocr running');
    expect(events.at(-1)).toBe('ocr done');
    expect((await app.list())[0]).toMatchObject({ status: 'indexed' });
    expect((await app.search({ query: 'quick brown dog', mode: 'lexical' })).results[0]!.citation).toMatchObject({
      kind: 'region',
      path: join(dir, 'a.png'),
    });
    // Set to a language with no data, a new image waits; set back, it is read with no ingest asked for.
    await app.setSetting('ocr.languages', 'xyz');
    expect((await app.ingest([join(dir, 'b.png')])).ocr).toMatchObject({ pending: 1 });
    const again = new Promise<void>((resolve) => app.keepUp((e) => e.phase === 'done' && resolve()));
    await app.setSetting('ocr.languages', 'eng');
    await again;
    expect((await app.list()).find((d) => d.path.endsWith('b.png'))).toMatchObject({ status: 'indexed' });
  });

  it('cites a scan still waiting for OCR, found by its name, as its whole frame — never an empty region', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'bill.png'), readFileSync(image('testocr.png')));
    const engine = await engineIn(join(dir, 'data'), { ocr: { languages: 'xyz' } });
    await engine.ingest([dir]);
    const hit = (await engine.search({ query: 'bill.png', mode: 'lexical' })).results[0]!;
    expect(hit.citation).toMatchObject({ kind: 'region', x: 0, y: 0, w: 640, h: 480, path: join(dir, 'bill.png') });
    expect(hit.source.reason).toMatch(/waiting for OCR|needs/);
  });

  it('is skipped when turned off: images are not indexed, and a scan-only PDF says why it has no text', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'pic.png'), readFileSync(image('testocr.png')));
    const doc = await PDFDocument.create();
    const png = await doc.embedPng(readFileSync(image('testocr.png')));
    doc.addPage([612, 792]).drawImage(png, { x: 56, y: 400, width: 500, height: 375 });
    writeFileSync(join(dir, 'scan.pdf'), await doc.save());
    const engine = await engineIn(join(dir, 'data'), { ocr: { enabled: false } });
    const s = await engine.ingest([dir]);
    expect(s.skipped).toContainEqual({ path: join(dir, 'pic.png'), reason: expect.stringMatching(/OCR is off/) });
    expect(s.errors).toEqual([{ path: join(dir, 'scan.pdf'), code: 'EMPTY', message: expect.stringMatching(/OCR is off/) }]);
  });

  it('fails clearly on an image that is not one, and on OCR data that is missing', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'fake.png'), 'just text, no pixels');
    writeFileSync(join(dir, 'real.png'), readFileSync(image('simple.png')));
    const engine = await engineIn(join(dir, 'data'), { ocr: { languages: 'xyz' } });
    const s = await engine.ingest([dir]);
    expect(s.errors.find((e) => e.path.endsWith('fake.png'))).toMatchObject({
      code: 'PARSE_FAILED',
      message: expect.stringMatching(/not an image/),
    });
    // Missing OCR data fails no file: the image waits for it, and the summary says what it waits for.
    expect(s.errors.find((e) => e.path.endsWith('real.png'))).toBeUndefined();
    expect(s.warnings.find((e) => e.path.endsWith('real.png'))).toMatchObject({
      code: 'MODEL_MISSING',
      message: expect.stringMatching(/@tesseract.js-data\/xyz/),
    });
    expect((await engine.list()).find((d) => d.path.endsWith('real.png'))).toMatchObject({
      status: 'waiting',
      reason: expect.stringMatching(/waiting for OCR/),
    });
    expect(s.ocr).toMatchObject({ pages: 0, pending: 1 });
    expect((await engine.inspectDoc(join(dir, 'real.png'))).ocr_pages[0]!.status).toBe('pending');
    const ocrCheck = (await engine.doctor()).checks.find((c) => c.name === 'OCR');
    expect(ocrCheck).toMatchObject({ status: 'warn', detail: expect.stringMatching(/@tesseract.js-data\/xyz/) });
  });

  it("renders a scan compressed as CCITT fax, as black-and-white scanners write them, with its ink (pdf.js's WebAssembly decoders)", async () => {
    // Without the decoders pdf.js left the image out, and OCR read a blank page.
    const scan = readFileSync(join(corpora!, 'pdf', 'pdfplumber', 'issue-203-decimalize.pdf'));
    const page = await raster({ kind: 'pdf-page', data: new Uint8Array(scan), page: 1, dpi: 100 });
    const img = await loadImage(Buffer.from(page.image));
    const g = createCanvas(img.width, img.height).getContext('2d');
    g.drawImage(img, 0, 0);
    const px = g.getImageData(0, 0, img.width, img.height).data;
    let ink = 0;
    for (let i = 0; i < px.length; i += 4) if (px[i]! < 128) ink++;
    expect(ink / (img.width * img.height)).toBeGreaterThan(0.01);
  });

  it('does not index what it cannot read (a Chinese scan read with English data): the page says it needs another OCR language, and is read again once it is set', async () => {
    const dir = await tempDir();
    const scan = join(corpora!, 'pdf', 'pdfplumber', 'issue-203-decimalize.pdf');
    writeFileSync(join(dir, 'scan.pdf'), readFileSync(scan));
    const data = join(dir, 'data');
    const engine = await engineIn(data);
    let s;
    try {
      s = await engine.ingest([join(dir, 'scan.pdf')]);
      // Nothing of the garbage is searchable: the page has no chunks at all.
      expect((await engine.inspectDoc(join(dir, 'scan.pdf'))).chunks).toEqual([]);
      expect(s.warnings).toContainEqual({
        path: join(dir, 'scan.pdf'),
        code: 'MODEL_MISSING',
        message: expect.stringMatching(/^page 1 needs .*OCR language.*scored \d+ of 100.*ocr\.languages/),
      });
      // The languages it likely needs are named, the Chinese one among them, even where tesseract cannot tell the script.
      expect(s.warnings.find((w) => w.path === join(dir, 'scan.pdf'))!.message).toMatch(/\b(chi_sim)\b/);
      expect((await engine.list())[0]).toMatchObject({
        status: 'waiting',
        reason: expect.stringMatching(/^pages 1, 2, 3 need .*OCR language/),
      });
      expect((await engine.inspectDoc(join(dir, 'scan.pdf'))).ocr_pages[0]).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/needs .*OCR language/),
      });
      expect((await engine.doctor()).checks.find((c) => c.name === 'OCR')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/3 pages of 1 document need an OCR language/),
      });
    } finally {
      engine.close();
    }
    // Another language set (here a stand-in: English data under another code, and no confidence floor):
    // the next ingest reads the page again, and the document stops saying what it needed.
    const langs = join(dir, 'langs');
    const { mkdirSync, copyFileSync } = await import('node:fs');
    const { createRequire } = await import('node:module');
    mkdirSync(langs);
    const eng = join(
      createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json'),
      '..',
      '4.0.0_best_int',
      'eng.traineddata.gz',
    );
    copyFileSync(eng, join(langs, 'xyz.traineddata.gz'));
    const again = await engineIn(data, { ocr: { languages: 'eng+xyz', lang_path: langs, min_confidence: 0 } });
    try {
      const s2 = await again.ingest([join(dir, 'scan.pdf')]);
      expect(s2.ocr).toMatchObject({ pages: 3 });
      expect((await again.list())[0]).toMatchObject({ status: 'indexed', reason: null });
      expect((await again.inspectDoc(join(dir, 'scan.pdf'))).chunks.length).toBeGreaterThan(0);
    } finally {
      again.close();
    }
  }, 120_000);

  it('counts the OCR pass in the ingest time it reports', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'pic.png'), readFileSync(image('testocr.png')));
    const engine = await engineIn(join(dir, 'data'));
    try {
      const t0 = performance.now();
      const s = await engine.ingest([dir]);
      const wall = performance.now() - t0;
      expect(s.ocr).toMatchObject({ pages: 1 });
      // Before, took_ms stopped when the text layer was written, a small part of the wait.
      expect(s.took_ms).toBeGreaterThanOrEqual(0.9 * wall);
    } finally {
      engine.close();
    }
  });
});

describe('an unreadable page’s message', () => {
  it('names the language data it needs: the one tesseract is sure of, else its guess among the common ones', async () => {
    const { unreadableMessage } = await import('../src/worker/ingest/ocr/ocr-pass.js');
    expect(unreadableMessage('page 1', 20, 'eng', { script: 'Han', language: 'chi_sim', sure: true })).toMatch(
      /^page 1 needs OCR language chi_sim \(tesseract sees Han script\)/,
    );
    const unsure = unreadableMessage('page 1', 20, 'eng', { script: 'Cyrillic', language: 'rus', sure: false });
    expect(unsure).toMatch(/cannot tell its script for sure \(its guess: Cyrillic\); likely one of rus, chi_sim, jpn, kor, ara, hin/);
    expect(unreadableMessage('the image', 20, 'eng+jpn', null)).toMatch(/likely one of chi_sim, kor, rus, ara, hin, ell/);
  });
});
