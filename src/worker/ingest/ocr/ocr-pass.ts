// The OCR pass: after a batch's text layer is indexed (and searchable), images and PDF pages without
// text are read from pixels. Work is queued in ocr_pages, so a pass that is cancelled or interrupted
// resumes on the next ingest. Each page's chunks are written in one transaction with its status.
import { readFile } from 'node:fs/promises';
import { indexedOriginal } from '../original.js';
import { KbError, toErrorPayload } from '../../../shared/errors.js';
import type { IngestError, IngestProgress } from '../../../shared/wire.js';
import type { Anchor } from '../../../shared/anchors.js';
import type { BlobsPort } from '../../store/port.js';
import type { Store } from '../../store/port.js';
import type { OcrJob } from '../../store/rows.js';
import type { Config } from '../../../shared/config.js';
import { chunkIdsFrom } from '../chunk/chunk-ids.js';
import type { Ocr, OcrBox, OcrParagraph, OcrResult } from './ocr.js';
import { COMMON_SCRIPT_LANGUAGES, type ScriptGuess } from './scripts.js';
import type { ParsePool } from '../parse-pool.js';
import { pageChunks } from '../formats/pdf.js';
import type { ChunkingOptions, ParsedChunk } from '../types.js';

type PageAnchor = Extract<Anchor, { kind: 'page' }>;

export interface OcrContext {
  store: Store;
  blobs: BlobsPort;
  config: Config;
  parser: ParsePool;
  /** The tesseract worker, started on first need. */
  ocr: () => Promise<Ocr>;
}

export interface OcrPassResult {
  pages: number;
  failed: number;
  pending: number;
  errors: IngestError[];
}

/** The bytes OCR reads: exactly those the document was indexed from (see read/original.ts). */
async function original(ctx: OcrContext, job: OcrJob): Promise<Uint8Array> {
  const file = await indexedOriginal(ctx.store, ctx.blobs, job);
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    throw new KbError('VANISHED', `${job.path} disappeared while it was being read`);
  }
}

/**
 * An image's paragraphs → chunks, each citing the union of its paragraphs' boxes. tesseract.js and the
 * canvas both read a photo as viewers show it (its EXIF orientation applied), so the boxes are already
 * in the frame `#xywh=` means: the image as displayed.
 */
export function regionChunks(paras: OcrParagraph[], opts: ChunkingOptions): ParsedChunk[] {
  const out: ParsedChunk[] = [];
  let group: OcrParagraph[] = [];
  const flush = (): void => {
    if (group.length === 0) return;
    const box = {
      x0: Math.min(...group.map((p) => p.bbox.x0)),
      y0: Math.min(...group.map((p) => p.bbox.y0)),
      x1: Math.max(...group.map((p) => p.bbox.x1)),
      y1: Math.max(...group.map((p) => p.bbox.y1)),
    };
    const text = group.map((p) => p.text).join('\n\n');
    const chars = group.reduce((n, p) => n + p.text.length, 0);
    const confidence = Math.round(group.reduce((n, p) => n + p.confidence * p.text.length, 0) / Math.max(1, chars));
    const region = { x: Math.round(box.x0), y: Math.round(box.y0), w: Math.round(box.x1 - box.x0), h: Math.round(box.y1 - box.y0) };
    out.push({ text, heading: '', anchor: { kind: 'region', ...region, confidence } });
    group = [];
  };
  for (const p of paras) {
    const size = group.reduce((n, g) => n + g.text.length + 2, 0);
    if (group.length > 0 && size + p.text.length > opts.target_chars) flush();
    group.push(p);
  }
  flush();
  return out;
}

/** A box found on the image turned clockwise by `degrees` → the same box on the image as stored (w × h). */
export function unturn(b: OcrBox, degrees: number, w: number, h: number): OcrBox {
  switch (degrees) {
    case 90:
      return { x0: b.y0, y0: h - b.x1, x1: b.y1, y1: h - b.x0 };
    case 180:
      return { x0: w - b.x1, y0: h - b.y1, x1: w - b.x0, y1: h - b.y0 };
    case 270:
      return { x0: w - b.y1, y0: b.x0, x1: w - b.y0, y1: b.x1 };
    default:
      return b;
  }
}

/** Below this confidence a page may be sideways or upside down: orientation is checked and a turned copy tried. */
const DOUBTFUL = 70;

/** OCR of an image, set upright first when it reads badly and tesseract's OSD says it is turned. */
async function recognizeUpright(ctx: OcrContext, ocr: Ocr, image: Uint8Array, w: number, h: number): Promise<OcrResult> {
  const first = await ocr.recognize(image);
  if (first.confidence >= DOUBTFUL || w === 0 || h === 0) return first;
  const degrees = await ocr.orientation(image);
  if (!degrees) return first;
  const turned = await ctx.parser.raster({ kind: 'rotate', data: new Uint8Array(image), degrees });
  const second = await ocr.recognize(turned.image);
  if (second.confidence <= first.confidence) return first;
  return { ...second, paragraphs: second.paragraphs.map((p) => ({ ...p, bbox: unturn(p.bbox, degrees, w, h) })) };
}

/**
 * A page read with too little confidence: its words are not indexed (they would be garbage in every
 * search), and the page says what it needs — the language data of its script, and how to get it.
 */
export function unreadableMessage(what: string, confidence: number, languages: string, guess: ScriptGuess | null): string {
  const have = languages.split('+');
  const code = guess?.sure && guess.language && !have.includes(guess.language) ? guess.language : null;
  // Unsure, tesseract's guess is told as a guess, beside the language data of the scripts most met.
  const maybe = [...new Set([...(guess && !guess.sure && guess.language ? [guess.language] : []), ...COMMON_SCRIPT_LANGUAGES])]
    .filter((l) => !have.includes(l))
    .slice(0, 6);
  const needs = code
    ? `needs OCR language ${code} (tesseract sees ${guess!.script} script)`
    : `needs an OCR language that is not installed — tesseract cannot tell its script for sure${guess && !guess.sure ? ` (its guess: ${guess.script})` : ''}; likely one of ${maybe.join(', ')}`;
  const how = code
    ? `install it (Debian: apt-get install tesseract-ocr-${code.replace(/_/g, '-')}; or npm install @tesseract.js-data/${code} in kb's folder), add ${code} to ocr.languages (Settings): kb reads it again then`
    : `install the language data of the document's script (Debian: tesseract-ocr-<code>, or npm install @tesseract.js-data/<code>), add it to ocr.languages (Settings): kb reads it again then`;
  return `${what} ${needs}: read with ${languages} it scored ${Math.round(confidence)} of 100, too low to index; ${how}`;
}

/** The code an unreadable page is reported with: the language data it needs is missing. */
const UNREADABLE_CODE = 'MODEL_MISSING';

type PageRead = { chunks: ParsedChunk[]; confidence: number; unreadable: string | null };

async function readPage(ctx: OcrContext, job: OcrJob): Promise<PageRead> {
  const data = await original(ctx, job);
  const ocr = await ctx.ocr();
  const what = job.type === 'image' ? 'the image' : `page ${job.page}`;
  const gate = async (image: Uint8Array, result: OcrResult): Promise<string | null> =>
    result.confidence < ctx.config.ocr.min_confidence && result.paragraphs.length > 0
      ? unreadableMessage(what, result.confidence, ctx.config.ocr.languages, await ocr.script(image))
      : null;
  if (job.type === 'image') {
    const r = await ctx.parser.raster({ kind: 'image', data });
    const result = await recognizeUpright(ctx, ocr, r.image, r.width, r.height);
    const unreadable = await gate(r.image, result);
    return { chunks: unreadable ? [] : regionChunks(result.paragraphs, ctx.config.chunking), confidence: result.confidence, unreadable };
  }
  const r = await ctx.parser.raster({ kind: 'pdf-page', data, page: job.page, dpi: ctx.config.ocr.dpi });
  const result = await recognizeUpright(ctx, ocr, r.image, r.width, r.height);
  const unreadable = await gate(r.image, result);
  if (unreadable) return { chunks: [], confidence: result.confidence, unreadable };
  const texts = result.paragraphs.map((p) => p.text);
  const chunks = pageChunks(
    job.page,
    texts,
    texts.map(() => ''),
    ctx.config.chunking,
  ).map((c) => ({
    ...c,
    anchor: { ...c.anchor, confidence: Math.round(result.confidence), ...boxOf(c.anchor, result.paragraphs, r.width, r.height) },
  }));
  return { chunks, confidence: result.confidence, unreadable: null };
}

/** Where on the page a passage of an OCR'd page stands: its paragraphs' boxes together, as fractions of the page. */
function boxOf(
  anchor: Anchor,
  paragraphs: OcrResult['paragraphs'],
  width: number,
  height: number,
): { box?: NonNullable<PageAnchor['box']> } {
  if (anchor.kind !== 'page' || anchor.char_start === undefined || anchor.char_end === undefined || !width || !height) return {};
  let at = 0;
  let box: OcrBox | null = null;
  for (const p of paragraphs) {
    // The page's text is its paragraphs joined by a blank line (pageChunks): a chunk's characters say which.
    if (at < anchor.char_end && at + p.text.length > anchor.char_start)
      box = box
        ? {
            x0: Math.min(box.x0, p.bbox.x0),
            y0: Math.min(box.y0, p.bbox.y0),
            x1: Math.max(box.x1, p.bbox.x1),
            y1: Math.max(box.y1, p.bbox.y1),
          }
        : { ...p.bbox };
    at += p.text.length + 2;
  }
  if (!box) return {};
  const f = (n: number, of: number): number => Math.min(1, Math.max(0, Math.round((n / of) * 10_000) / 10_000));
  return { box: { x: f(box.x0, width), y: f(box.y0, height), w: f(box.x1 - box.x0, width), h: f(box.y1 - box.y0, height) } };
}

/** Runs every pending OCR page, in path and page order, until done or cancelled. */
export async function runOcr(
  ctx: OcrContext,
  opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {},
): Promise<OcrPassResult> {
  // Languages installed since: what they may read goes back in the queue, its "needs OCR language" said no more.
  const { tables } = ctx.store;
  const retried = await ctx.store.write((t) => t.ocr.retryUnreadable(ctx.config.ocr.languages));
  for (const docId of retried) {
    if ((await tables.documents.byId(docId))?.error?.startsWith(`${UNREADABLE_CODE}: `)) await tables.documents.setError(docId, null);
  }
  const jobs = await tables.ocr.pending();
  const result: OcrPassResult = { pages: 0, failed: 0, pending: 0, errors: [] };
  if (jobs.length === 0) return result;
  const seen = new Map<string, Map<string, number>>();
  for (const [i, job] of jobs.entries()) {
    if (opts.signal?.aborted) {
      result.pending = jobs.length - i;
      break;
    }
    opts.onProgress?.({ phase: 'ocr', done: i, total: jobs.length, path: job.path });
    // Another process sharing the store may be reading this page already (or has read it since).
    if (!(await tables.ocr.claim(job.doc_id, job.page))) continue;
    try {
      const { chunks, confidence, unreadable } = await readPage(ctx, job);
      if (unreadable) {
        await tables.ocr.finish({
          doc_id: job.doc_id,
          page: job.page,
          status: 'failed',
          confidence,
          error: unreadable,
          unreadable_with: ctx.config.ocr.languages,
        });
        result.failed++;
        result.errors.push({ path: job.path, code: UNREADABLE_CODE, message: unreadable });
        continue;
      }
      const docSeen = seen.get(job.doc_id) ?? new Map<string, number>();
      seen.set(job.doc_id, docSeen);
      await ctx.store.write(async (t) => {
        await t.chunks.insert(
          job.doc_id,
          chunkIdsFrom(job.doc_id, chunks, docSeen, await t.chunks.nextOrdinal(job.doc_id), `ocr:${job.page}\u0000`),
        );
        await t.ocr.finish({ doc_id: job.doc_id, page: job.page, status: 'done', confidence, error: null });
      });
      result.pages++;
    } catch (e) {
      const err = toErrorPayload(e);
      if (err.code === 'MODEL_MISSING' || err.code === 'MODEL_INVALID') {
        // No OCR data: nothing else can be read either. The pages stay pending for when it is there.
        result.pending = jobs.length - i;
        result.errors.push({ path: job.path, ...err });
        break;
      }
      await tables.ocr.finish({
        doc_id: job.doc_id,
        page: job.page,
        status: 'failed',
        confidence: null,
        error: `${err.code}: ${err.message}`,
      });
      await tables.documents.setError(
        job.doc_id,
        `${err.code}: OCR of ${job.type === 'image' ? 'the image' : `page ${job.page}`} failed: ${err.message}`,
      );
      result.failed++;
      result.errors.push({
        path: job.path,
        code: err.code,
        message: `OCR of ${job.type === 'image' ? 'the image' : `page ${job.page}`} failed: ${err.message}`,
      });
    }
  }
  opts.onProgress?.({ phase: 'ocr', done: jobs.length - result.pending, total: jobs.length });
  // A document OCR has finished with and that still has no text at all says so (kb ls shows it).
  for (const docId of new Set(jobs.map((j) => j.doc_id))) {
    const pages = await tables.ocr.of(docId);
    // Pages in a script whose language is missing: the document says which pages, and what they need.
    const unreadable = pages.filter((p) => p.unreadable_with !== null && p.error);
    if (unreadable.length > 0) {
      const which = unreadable.length === 1 ? `page ${unreadable[0]!.page}` : `pages ${unreadable.map((p) => p.page).join(', ')}`;
      const first = unreadable[0]!.error!.replace(
        /^(page \d+|the image) needs/,
        `${jobs.find((j) => j.doc_id === docId)!.type === 'image' ? 'the image' : which} need${unreadable.length === 1 ? 's' : ''}`,
      );
      await tables.documents.setError(docId, `${UNREADABLE_CODE}: ${first}`);
    }
    // A page that failed already says why there is no text; "no text found" would hide that.
    if (pages.some((p) => p.status === 'pending' || p.status === 'failed') || (await tables.chunks.count(docId)) > 0) continue;
    const job = jobs.find((j) => j.doc_id === docId)!;
    const message = `no text found, not even by OCR (${job.type === 'image' ? 'a picture without words?' : `${pages.length} page(s) read`})`;
    await tables.documents.setError(docId, `EMPTY: ${message}`);
    result.errors.push({ path: job.path, code: 'EMPTY', message });
  }
  return result;
}
