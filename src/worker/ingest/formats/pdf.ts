// PDF → page-exact chunks, page by page (pdfjs-dist legacy build; runs on a parse thread). Pages are
// read in windows of a few, turned into paragraphs in reading order (pdf-layout.ts), stripped of
// running headers, footers and page numbers, packed into chunks that never leave their page, and
// handed on a window at a time, so a 1,000-page PDF is never held as text all at once.
import type * as PdfJsModule from 'pdfjs-dist/legacy/build/pdf.mjs';
import { KbError } from '../../../shared/errors.js';
import { detectLanguage } from '../language.js';
import { pdfjsData } from '../pdfjs-data.js';
import { Vocabulary } from './pdf-hyphens.js';
import { type RawItem, uprightItems } from './pdf-items.js';
import { fragments, type Fragment, type Paragraph, paragraphs, readingOrder, rowsOf } from './pdf-layout.js';
import { MarginTracker, type PagePart } from './pdf-margins.js';
import type { ChunkingOptions, ParsedChunk } from '../types.js';

/** Lines of text running another way in a page's margin that are a stamp, not text to read. */
const MARGIN_STAMP_LINES = 3;

export interface PdfRequest {
  data: Uint8Array;
  name: string;
  chunking: ChunkingOptions;
  /** Give up (TIMEOUT) when the document takes longer than this. */
  timeoutMs: number;
}

/** Sent with every window of chunks: the title and language are settled by the first (page 1, early text). */
export interface PdfProgress {
  pagesDone: number;
  title: string;
  lang: string | null;
}

export interface PdfMeta {
  title: string;
  lang: string | null | undefined;
  pageCount: number;
  /** Pages with no text layer (scans): what OCR would read. */
  textlessPages: number[];
}

/** Pages read before their chunks are handed on; header/footer repetition is judged over what was seen. */
const WINDOW = 16;
/** A page with less body text than this (in characters, a CJK one counting as a word: CJK_WEIGHT) has no usable text layer. */
const MIN_PAGE_TEXT = 16;
/** A Chinese, Japanese or Korean character says about what a short word with its space does in a Latin script. */
const CJK_WEIGHT = 4;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/gu;
const textWeight = (s: string): number => s.length + (CJK_WEIGHT - 1) * (s.match(CJK)?.length ?? 0);

type PdfJs = typeof PdfJsModule;
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
    ...pdfjsData(),
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
/**
 * What producers leave in a PDF's Title that is no title: the name of the file it was made from
 * ("10811.exe", "C:\\jobs\\report.qxd", "Microsoft Word - memo.doc"), an application's default
 * ("Document1", "untitled", "Presentation2"), or a number or hash. The file name is better then.
 */
const JUNK_TITLE = [
  /\.(exe|docx?|pdf|pptx?|xlsx?|tex|dvi|rtf|txt|html?|e?ps|qxd|qxp|indd?|pmd|p65|wpd|od[tps]|tmp|cdr|ai|psd|fm|mif|pub|vsd|wps|pages|key|numbers)$/i,
  /[\\/]/,
  /^(untitled|document|presentation|book|slide|sheet|doc|title|microsoft word)\s*\d*$/i,
  // Placeholders a library writes when the program gave none (reportlab's "(anonymous)", "(unspecified)").
  /^[([<]\s*(anonymous|unspecified|unknown|none|null|no title|untitled)\s*[)\]>]$/i,
  /^[\d\s._-]+$/,
  /^[0-9a-f]{16,}$/i,
  // One word joined by underscores is a file's name ("905_Precinct_NoOU"), not a title.
  /^\S+_\S+$/,
];

export function metaTitle(info: unknown): string | null {
  const t = (info as { Title?: unknown } | null)?.Title;
  if (typeof t !== 'string') return null;
  // Producers leave NULs and other control characters in titles ("imagemagick-lzw\0").
  const clean = t
    .replace(/[\u0000-\u001f]/g, ' ')
    .replace(/^Microsoft (Word|PowerPoint|Excel) - /, '')
    .trim();
  if (clean.length < 2 || /^untitled/i.test(clean) || JUNK_TITLE.some((re) => re.test(clean))) return null;
  return clean;
}

interface OutlineNode {
  title: string;
  dest: string | unknown[] | null;
  items: OutlineNode[];
}

interface Section {
  page: number;
  /** The bookmark's own title, to find where on its page the section starts. */
  title: string;
  /** With its parents: "Part > Section". */
  label: string;
}

/** Bookmarks → where each section starts, in document order. */
async function sections(doc: PdfDoc): Promise<Section[]> {
  let outline: OutlineNode[] | null;
  try {
    outline = (await doc.getOutline()) as OutlineNode[] | null;
  } catch {
    return [];
  }
  const out: Section[] = [];
  const walk = async (nodes: OutlineNode[], path: string[]): Promise<void> => {
    for (const n of nodes) {
      const title = n.title.trim();
      const label = [...path, title].filter(Boolean);
      try {
        const dest = typeof n.dest === 'string' ? await doc.getDestination(n.dest) : n.dest;
        const ref = dest?.[0];
        const index = typeof ref === 'number' ? ref : ref ? await doc.getPageIndex(ref as Parameters<PdfDoc['getPageIndex']>[0]) : null;
        if (index !== null && index >= 0) out.push({ page: index + 1, title, label: label.join(' > ') });
      } catch {
        // a bookmark to nowhere names no section
      }
      if (n.items.length > 0) await walk(n.items, label);
    }
  };
  await walk(outline ?? [], []);
  return out.sort((a, b) => a.page - b.page); // stable: document order within a page
}

const squash = (t: string): string =>
  t
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Which section each paragraph of a page is in: the section open at the end of the previous pages,
 * switching at a short paragraph that reads as the next bookmark's heading ("2 Bar" for "Bar").
 * A bookmark whose heading is not found on its page takes effect at the top of the page.
 */
export function labelParagraphs(page: number, paras: string[], secs: Section[]): string[] {
  let current = '';
  for (const s of secs) if (s.page < page) current = s.label;
  const here = secs.filter((s) => s.page === page);
  // Each bookmark's heading is looked for after the previous one's, so two "Foo"s on a page stay apart.
  let from = 0;
  const found = here.map((s) => {
    const t = squash(s.title);
    const i = t.length === 0 ? -1 : paras.findIndex((p, j) => j >= from && p.length <= 160 && squash(p).endsWith(t));
    if (i >= 0) from = i + 1;
    return i;
  });
  // Bookmarks not found on the page open at its top, in order.
  here.forEach((s, i) => {
    if (found[i] === -1) current = s.label;
  });
  const labels: string[] = [];
  let next = 0;
  for (let i = 0; i < paras.length; i++) {
    while (next < here.length && (found[next] === -1 || found[next]! < i)) next++;
    if (next < here.length && found[next] === i) current = here[next]!.label;
    labels.push(current);
  }
  return labels;
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

/**
 * One page's paragraphs → chunks within that page, each with its character range in the page text
 * (paragraphs joined by blank lines). A chunk never spans a change of section.
 */
export function pageChunks(page: number, paras: string[], labels: string[], opts: ChunkingOptions): ParsedChunk[] {
  const pageText = paras.join('\n\n');
  const spans: { span: [number, number]; label: string }[] = [];
  let at = 0;
  paras.forEach((p, i) => {
    const label = labels[i] ?? '';
    if (p.length > opts.max_chars) for (const span of splitLong(p, at, opts.max_chars)) spans.push({ span, label });
    else spans.push({ span: [at, at + p.length], label });
    at += p.length + 2;
  });
  const chunks: ParsedChunk[] = [];
  let cur: [number, number] | null = null;
  let curLabel = '';
  const flush = (): void => {
    if (!cur) return;
    chunks.push({
      text: pageText.slice(cur[0], cur[1]),
      heading: curLabel,
      anchor: { kind: 'page', page, char_start: cur[0], char_end: cur[1] },
    });
    cur = null;
  };
  for (const { span, label } of spans) {
    if (cur && (label !== curLabel || (span[1] - cur[0] > opts.target_chars && cur[1] - cur[0] >= opts.min_chars))) flush();
    if (!cur) curLabel = label;
    cur = cur ? [cur[0], span[1]] : span;
    if (cur[1] - cur[0] >= opts.target_chars) flush();
  }
  flush();
  return chunks;
}

interface PageText {
  page: number;
  frags: Fragment[];
  height: number;
  /** Text running across the page's main direction (a margin stamp, a turned page's header), read after the body. */
  asides: PagePart[];
}

export async function parsePdf(req: PdfRequest, onChunks: (chunks: ParsedChunk[], progress: PdfProgress) => void): Promise<PdfMeta> {
  const started = performance.now();
  const { doc, task } = await open(req);
  try {
    const pageCount = doc.numPages;
    if (pageCount === 0) throw new KbError('EMPTY', 'the PDF has no pages');
    const meta = await doc.getMetadata().catch(() => null);
    const secs = await sections(doc);
    let title = metaTitle(meta?.info);
    const margins = new MarginTracker(pageCount);
    const vocab = new Vocabulary();
    const textless: number[] = [];
    let sample = '';
    let lang: string | null | undefined;

    for (let first = 1; first <= pageCount; first += WINDOW) {
      const window: PageText[] = [];
      for (let n = first; n < first + WINDOW && n <= pageCount; n++) {
        if (performance.now() - started > req.timeoutMs) {
          throw new KbError(
            'TIMEOUT',
            `gave up after ${Math.round(req.timeoutMs / 1000)} s at page ${n} of ${pageCount} (ingest.pdf_timeout_s)`,
          );
        }
        const page = await doc.getPage(n);
        try {
          const viewport = page.getViewport({ scale: 1 });
          const content = await page.getTextContent();
          const raw: RawItem[] = [];
          for (const it of content.items)
            if ('str' in it) raw.push({ str: it.str, transform: it.transform as number[], width: it.width, height: it.height });
          const upright = uprightItems(raw, viewport);
          const p: PageText = {
            page: n,
            frags: fragments(upright.main),
            height: upright.height,
            asides: upright.asides
              .map((a) => ({ frags: fragments(a.items), height: a.height, margin: a.margin }))
              // A line or three set up the margin (a production stamp, arXiv's identifier) is
              // furniture, not body text; a turned table or a landscape page's text is read.
              .filter((a) => !(a.margin && rowsOf(a.frags).length <= MARGIN_STAMP_LINES))
              .map(({ frags, height }) => ({ frags, height })),
          };
          margins.see(n, [p, ...p.asides]);
          window.push(p);
        } finally {
          page.cleanup();
        }
      }
      const laid = window.map((p) => ({
        page: p.page,
        paras: [p, ...p.asides].flatMap((part) => paragraphs(readingOrder(margins.body(p.page, part)))),
      }));
      // Line-end hyphens are settled against every word read so far, this window's included.
      for (const l of laid) for (const x of l.paras) vocab.add(x.text);
      const chunks: ParsedChunk[] = [];
      for (const l of laid) {
        const paras: Paragraph[] = l.paras.map((x) => ({ ...x, text: vocab.settle(x.text) }));
        // No usable text layer: nothing, or only a few characters besides the running header and
        // page number (a scan with a stamped page number). Such a page goes to OCR instead.
        if (paras.reduce((n, x) => n + textWeight(x.text), 0) < MIN_PAGE_TEXT) {
          textless.push(l.page);
          continue;
        }
        if (!title && l.page === 1) {
          const big = paras.filter((x) => x.text.length >= 3).sort((a, b) => b.height - a.height)[0];
          if (big && big.height > Math.min(...paras.map((x) => x.height)) * 1.15) title = big.text.slice(0, 200);
        }
        const texts = paras.map((x) => x.text);
        if (sample.length < 2000) sample += ' ' + texts.join(' ');
        chunks.push(...pageChunks(l.page, texts, labelParagraphs(l.page, texts, secs), req.chunking));
      }
      title ??= req.name.replace(/\.pdf$/i, '');
      lang ??= detectLanguage(sample.trim());
      onChunks(chunks, { pagesDone: Math.min(pageCount, first + WINDOW - 1), title, lang });
    }
    return { title: title ?? req.name, lang, pageCount, textlessPages: textless };
  } finally {
    await task.destroy();
  }
}
