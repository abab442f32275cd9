// Pixels for OCR, made on a parse thread (decoding and rendering are CPU work the engine's thread must
// not do): an image in a format tesseract reads as is, or converted to PNG; a PDF page rendered at the
// configured dpi with pdf.js onto an @napi-rs/canvas.
import { fileTypeFromBuffer } from 'file-type';
import { KbError } from '../../../shared/errors.js';
import { pdfjsData } from '../pdfjs-data.js';

export interface RasterRequest {
  kind: 'image' | 'pdf-page' | 'rotate';
  data: Uint8Array;
  /** pdf-page: which page (1-based) and at what resolution. */
  page?: number;
  dpi?: number;
  /** rotate: turn the image clockwise by 90, 180 or 270 degrees. */
  degrees?: number;
}

export interface Raster {
  /** An encoded image tesseract reads (PNG, JPEG, TIFF). */
  image: Uint8Array;
  width: number;
  height: number;
}

/** Formats Leptonica (inside tesseract) decodes itself; the rest go through the canvas to PNG. */
const NATIVE = new Set(['png', 'jpg', 'tif']);

async function rasterImage(data: Uint8Array): Promise<Raster> {
  const kind = (await fileTypeFromBuffer(data).catch(() => undefined))?.ext ?? 'unknown';
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  if (kind === 'tif') {
    // The canvas cannot decode TIFF; tesseract can. Its size comes back with the OCR result.
    return { image: data, width: 0, height: 0 };
  }
  let img;
  try {
    img = await loadImage(Buffer.from(data));
  } catch (e) {
    throw new KbError('PARSE_FAILED', `not a readable image (${(e as Error).message})`);
  }
  if (img.width === 0 || img.height === 0) throw new KbError('PARSE_FAILED', 'the image has no pixels');
  if (NATIVE.has(kind)) return { image: data, width: img.width, height: img.height };
  const canvas = createCanvas(img.width, img.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white'; // transparent GIF/WebP pixels read as white paper, not black
  ctx.fillRect(0, 0, img.width, img.height);
  ctx.drawImage(img, 0, 0);
  return { image: canvas.toBuffer('image/png'), width: img.width, height: img.height };
}

async function rasterPdfPage(data: Uint8Array, page: number, dpi: number): Promise<Raster> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const { createCanvas } = await import('@napi-rs/canvas');
  const task = pdfjs.getDocument({ data, disableFontFace: true, useSystemFonts: false, verbosity: 0, ...pdfjsData() });
  try {
    const doc = await task.promise;
    const p = await doc.getPage(page);
    const viewport = p.getViewport({ scale: dpi / 72 });
    const canvas = createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = 'white';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    // pdf.js types its parameters as DOM objects; @napi-rs/canvas implements the parts it uses.
    type RenderParams = Parameters<typeof p.render>[0];
    const params = { canvasContext: ctx, viewport, canvas } as unknown as RenderParams;
    await p.render(params).promise;
    return { image: canvas.toBuffer('image/png'), width: canvas.width, height: canvas.height };
  } finally {
    await task.destroy();
  }
}

/** The image turned clockwise, as PNG: a page scanned sideways, set upright for a second OCR try. */
async function rotate(data: Uint8Array, degrees: number): Promise<Raster> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(Buffer.from(data));
  const quarter = degrees === 90 || degrees === 270;
  const canvas = createCanvas(quarter ? img.height : img.width, quarter ? img.width : img.height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = 'white';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.translate(canvas.width / 2, canvas.height / 2);
  ctx.rotate((degrees * Math.PI) / 180);
  ctx.drawImage(img, -img.width / 2, -img.height / 2);
  return { image: canvas.toBuffer('image/png'), width: canvas.width, height: canvas.height };
}

export function raster(req: RasterRequest): Promise<Raster> {
  if (req.kind === 'rotate') return rotate(req.data, req.degrees ?? 0);
  return req.kind === 'image' ? rasterImage(req.data) : rasterPdfPage(req.data, req.page ?? 1, req.dpi ?? 300);
}
