// OCR quality and cost: word accuracy on testocr.png (tesseract.js's own test image, whose text is
// known), and seconds per scanned page at 300 dpi (a PDF page that is only a picture of that image,
// rendered by pdf.js and read by tesseract through the same path ingest uses).
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { defaultConfig } from '../src/shared/config.js';
import { wordAccuracy } from '../src/worker/eval/metrics.js';
import { openEngine } from '../src/worker/index.js';
import { Ocr } from '../src/worker/ingest/ocr/ocr.js';
import { raster } from '../src/worker/ingest/ocr/raster.js';
import { TESTOCR_TEXT } from '../test/ocr-truth.js';
import { benchDir, corporaDir, type BenchResult } from './util.js';

export async function benchOcr(): Promise<BenchResult> {
  const img = join(corporaDir(), 'images', 'tesseract.js', 'testocr.png');
  const dir = benchDir('ocr');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const ocr = await Ocr.start(defaultConfig().ocr, dir);
  const r = await ocr.recognize(readFileSync(img));
  const accuracy = wordAccuracy(TESTOCR_TEXT, r.paragraphs.map((p) => p.text).join(' '));

  // A scanned letter-size page: the image drawn across it, rendered at 300 dpi, then read.
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(readFileSync(img));
  doc.addPage([612, 792]).drawImage(png, { x: 36, y: 300, width: 540, height: 405 });
  const pdf = await doc.save();
  writeFileSync(join(dir, 'scan.pdf'), pdf);
  const times: number[] = [];
  let pageAccuracy = 0;
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    const page = await raster({ kind: 'pdf-page', data: new Uint8Array(pdf), page: 1, dpi: 300 });
    const res = await ocr.recognize(page.image);
    times.push((performance.now() - t) / 1000);
    pageAccuracy = wordAccuracy(TESTOCR_TEXT, res.paragraphs.map((p) => p.text).join(' '));
  }
  await ocr.close();
  times.sort((a, b) => a - b);

  // End to end through kb ingest: the scanned page is found and cited by page.
  const engine = await openEngine({ dataDir: join(dir, 'data') });
  const t0 = performance.now();
  const s = await engine.ingest([join(dir, 'scan.pdf')]);
  const ingestSeconds = (performance.now() - t0) / 1000;
  const hit = (await engine.search({ query: 'quick brown dog', mode: 'lexical', top: 1 })).results[0];
  engine.close();
  const cited = hit?.citation.kind === 'page' && hit.citation.page === 1;
  return {
    name: 'ocr',
    lines: [
      `testocr.png: word accuracy ${(accuracy * 100).toFixed(1)}%, tesseract confidence ${r.confidence.toFixed(0)}`,
      `scanned page at 300 dpi (2550 × 3300 px): render + OCR median ${times[1]!.toFixed(2)} s (min ${times[0]!.toFixed(2)}, max ${times[2]!.toFixed(2)}), word accuracy ${(pageAccuracy * 100).toFixed(1)}%`,
      `kb ingest of that one-page scan: ${ingestSeconds.toFixed(1)} s including the tesseract worker start; OCR pages ${s.ocr?.pages ?? 0}; top hit cited page 1: ${cited ? 'yes' : 'NO'}`,
    ],
    checks: [
      { what: 'OCR word accuracy on testocr.png', value: accuracy * 100, target: 95, better: 'higher', unit: '%' },
      { what: 'scanned page found and cited by page', value: cited ? 1 : 0, target: 1, better: 'higher' },
    ],
  };
}
