// PDF → page-exact chunks, page by page (pdfjs-dist legacy build; runs on a parse thread). Pages are
// read in windows of a few, turned into paragraphs in reading order (pdf-layout.ts), stripped of
// running headers, footers and page numbers, packed into chunks that never leave their page, and
// handed on a window at a time, so a 1,000-page PDF is never held as text all at once.
import { KbError } from '../../shared/errors.js';
import { detectLanguage } from './language.js';
import { fragments, type Fragment, isPageNumber, marginSignature, type Paragraph, paragraphs, readingOrder, type TextItem } from './pdf-layout.js';
import type { ChunkingOptions, ParsedChunk } from './types.js';

export interface PdfRequest {
  data: Uint8Array;
  name: string;
  chunking: ChunkingOptions;
  /** Give up (TIMEOUT) when the document takes longer than this. */
  timeoutMs: number;
}

export interface PdfMeta {
  title: string;
  lang: string | null;
  pageCount: number;
  /** Pages with no text layer (scans): what OCR would read. */
  textlessPages: number[];
}

/** Pages read before their chunks are handed on; header/footer repetition is judged over what was seen. */
const WINDOW = 16;
/** Top and bottom bands of a page where running headers and footers live. */
const MARGIN = 0.08;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
type PdfTask = ReturnType<PdfJs['getDocument']>;
type PdfDoc = Awaited<PdfTask['promise']>;

let pdfjsP: Promise<PdfJs> | undefined;
function pdfjs(): Promise<PdfJs> {
  pdfjsP ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjsP;
}

async function open(req: PdfRequest): Promise<{ doc: PdfDoc; task: PdfTask }> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: req.data,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  try {
    return { doc: await task.promise, task };
  } catch (e) {
    void task.destroy();
    const name = (e as { name?: string }).name;
    const msg = (e as Error).message;
    if (name === 'PasswordException') {
      throw new KbError('ENCRYPTED', 'the PDF is password-protected; kb cannot read it (save a copy without a password and add that)');
    }
    if (name === 'InvalidPDFException') throw new KbError('PARSE_FAILED', `not a readable PDF (${msg})`);
    throw new KbError('PARSE_FAILED', `pdf.js could not open it: ${msg}`);
  }
}

/** Title from the metadata unless it is empty or a leftover file name ("Microsoft Word - x.doc"). */
function metaTitle(info: unknown): string | null {
  const t = (info as { Title?: unknown } | null)?.Title;
  if (typeof t !== 'string') return null;
  const clean = t.replace(/^Microsoft (Word|PowerPoint|Excel) - /, '').trim();
  if (clean.length < 2 || /^untitled/i.test(clean) || /\.(docx?|pdf|pptx?|xlsx?|tex|dvi)$/i.test(clean)) return null;
  return clean;
}

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

/** Bookmarks → where each section starts: [{ page, label: "Part > Section" }], sorted by page. */
async function sections(doc: PdfDoc): Promise<{ page: number; label: string }[]> {
  let outline: OutlineNode[] | null;
  try {
    outline = (await doc.getOutline()) as OutlineNode[] | null;
  } catch {
    return [];
  }
  const out: { page: number; label: string }[] = [];
  const walk = async (nodes: OutlineNode[], path: string[]): Promise<void> => {
    for (const n of nodes) {
      const label = [...path, n.title.trim()].filter(Boolean);
      try {
        const dest = typeof n.dest === 'string' ? await doc.getDestination(n.dest) : n.dest;
        const ref = dest?.[0];
        const index = typeof ref === 'number' ? ref : ref ? await doc.getPageIndex(ref as Parameters<PdfDoc['getPageIndex']>[0]) : null;
        if (index !== null && index >= 0) out.push({ page: index + 1, label: label.join(' > ') });
      } catch {
        // a bookmark to nowhere names no section
      }
      if (n.items.length > 0) await walk(n.items, label);
    }
  };
  await walk(outline ?? [], []);
  return out.sort((a, b) => a.page - b.page);
}

function sectionAt(secs: { page: number; label: string }[], page: number): string {
  let label = '';
  for (const s of secs) {
    if (s.page > page) break;
    label = s.label;
  }
  return label;
}

/** Splits an over-long paragraph at sentence ends (or spaces) into pieces of at most max chars. */
function splitLong(text: string, start: number, max: number): [number, number][] {
  const out: [number, number][] = [];
  let at = 0;
  while (text.length - at > max) {
    const window = text.slice(at, at + max);
    let cut = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '));
    if (cut < max * 0.4) cut = window.lastIndexOf(' ');
    if (cut < max * 0.4) cut = max - 1;
    out.push([start + at, start + at + cut + 1]);
    at += cut + 1;
    while (text[at] === ' ') at++;
  }
  if (at < text.length) out.push([start + at, start + text.length]);
  return out;
}

/** One page's paragraphs → chunks within that page, each with its character range in the page text. */
export function pageChunks(page: number, paras: string[], section: string, opts: ChunkingOptions): ParsedChunk[] {
  const pageText = paras.join('\n\n');
  const spans: [number, number][] = [];
  let at = 0;
  for (const p of paras) {
    if (p.length > opts.max_chars) spans.push(...splitLong(p, at, opts.max_chars));
    else spans.push([at, at + p.length]);
    at += p.length + 2;
  }
  const chunks: ParsedChunk[] = [];
  let cur: [number, number] | null = null;
  const flush = (): void => {
    if (!cur) return;
    chunks.push({ text: pageText.slice(cur[0], cur[1]), heading: section, anchor: { kind: 'page', page, char_start: cur[0], char_end: cur[1] } });
    cur = null;
  };
  for (const s of spans) {
    if (cur && s[1] - cur[0] > opts.target_chars && cur[1] - cur[0] >= opts.min_chars) flush();
    cur = cur ? [cur[0], s[1]] : s;
    if (cur[1] - cur[0] >= opts.target_chars) flush();
  }
  flush();
  return chunks;
}

interface PageText {
  page: number;
  frags: Fragment[];
  height: number;
}

export async function parsePdf(req: PdfRequest, onChunks: (chunks: ParsedChunk[], pagesDone: number) => void): Promise<PdfMeta> {
  const started = performance.now();
  const { doc, task } = await open(req);
  try {
    const pageCount = doc.numPages;
    if (pageCount === 0) throw new KbError('EMPTY', 'the PDF has no pages');
    const meta = await doc.getMetadata().catch(() => null);
    const secs = await sections(doc);
    let title = metaTitle(meta?.info);
    const margins = new Map<string, number>();
    const textless: number[] = [];
    let sample = '';
    let anyText = false;

    for (let first = 1; first <= pageCount; first += WINDOW) {
      const window: PageText[] = [];
      for (let n = first; n < first + WINDOW && n <= pageCount; n++) {
        if (performance.now() - started > req.timeoutMs) {
          throw new KbError('TIMEOUT', `gave up after ${Math.round(req.timeoutMs / 1000)} s at page ${n} of ${pageCount} (ingest.pdf_timeout_s)`);
        }
        const page = await doc.getPage(n);
        try {
          const height = page.getViewport({ scale: 1 }).height;
          const content = await page.getTextContent();
          const items: TextItem[] = [];
          for (const it of content.items) {
            if (!('str' in it)) continue;
            items.push({ str: it.str, x: it.transform[4] as number, y: it.transform[5] as number, width: it.width, height: it.height || Math.abs(it.transform[3] as number) });
          }
          const frags = fragments(items);
          if (frags.length === 0) textless.push(n);
          // Each signature counts once per page.
          const seen = new Set<string>();
          for (const f of frags) if (f.y > height * (1 - MARGIN) || f.y < height * MARGIN) seen.add(marginSignature(f.text));
          for (const s of seen) margins.set(s, (margins.get(s) ?? 0) + 1);
          window.push({ page: n, frags, height });
        } finally {
          page.cleanup();
        }
      }
      const pagesSeen = Math.min(pageCount, first + WINDOW - 1);
      const repeats = (s: string): boolean => pagesSeen >= 3 && (margins.get(s) ?? 0) >= Math.max(3, pagesSeen * 0.5);
      const chunks: ParsedChunk[] = [];
      for (const p of window) {
        const body = p.frags.filter((f) => {
          const inMargin = f.y > p.height * (1 - MARGIN) || f.y < p.height * MARGIN;
          return !(inMargin && (isPageNumber(f.text) || repeats(marginSignature(f.text))));
        });
        const paras: Paragraph[] = paragraphs(readingOrder(body));
        if (paras.length === 0) continue;
        anyText = true;
        if (!title && p.page === 1) {
          const big = paras.filter((x) => x.text.length >= 3).sort((a, b) => b.height - a.height)[0];
          if (big && big.height > Math.min(...paras.map((x) => x.height)) * 1.15) title = big.text.slice(0, 200);
        }
        const texts = paras.map((x) => x.text);
        if (sample.length < 2000) sample += ' ' + texts.join(' ');
        chunks.push(...pageChunks(p.page, texts, sectionAt(secs, p.page), req.chunking));
      }
      onChunks(chunks, Math.min(pageCount, first + WINDOW - 1));
    }
    if (!anyText) {
      throw new KbError('EMPTY', `no text on any of its ${pageCount} page${pageCount === 1 ? '' : 's'} (a scan? it needs OCR)`);
    }
    return { title: title ?? req.name.replace(/\.pdf$/i, ''), lang: detectLanguage(sample.trim()), pageCount, textlessPages: textless };
  } finally {
    await task.destroy();
  }
}
