// Serving an indexed document's bytes to the UI, shared by the web host (GET /doc/<id>) and the
// desktop app's kb-doc: protocol. The request names a document id and nothing else: the file is the
// one the engine has on record for that id, so no path from the UI is ever opened. Text is served as
// plain text under a sandboxing CSP, so an HTML or SVG file cannot run script in the app's origin.
import type { DocumentSource } from './wire.js';
import { toErrorPayload } from './errors.js';
import { DOC_ID } from './doc-id.js';
import { VIEW_KEYS_HASH } from './view-keys.js';

export interface DocReply {
  status: number;
  headers: Record<string, string>;
  /** The bytes to send, as a file and an inclusive byte range: each host streams them from disk. */
  body: { file: string; start: number; end: number } | null;
}

/** How a document's bytes are labelled: text is always plain text, so nothing in it is interpreted. */
const DOC_TYPES: Record<DocumentSource['type'], string> = {
  markdown: 'text/plain; charset=utf-8',
  note: 'text/plain; charset=utf-8',
  code: 'text/plain; charset=utf-8',
  pdf: 'application/pdf',
  image: 'application/octet-stream',
  audio: 'application/octet-stream',
  // The structured formats' own bytes: zipped ones are downloaded (see contentType); the viewer shows
  // every one of them through its rendition (/doc/<id>/view).
  docx: 'application/octet-stream',
  slides: 'application/octet-stream',
  epub: 'application/octet-stream',
  sheet: 'text/plain; charset=utf-8',
  html: 'text/plain; charset=utf-8',
  mail: 'text/plain; charset=utf-8',
};

/** Image and audio bytes get their real type, sniffed from the file name the engine recorded. */
const MEDIA: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/ogg',
  wav: 'audio/wav',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
};

/** The zipped formats' own bytes are for downloading; the text ones (csv, html, mail) are shown as text. */
const ZIPPED = /\.(docx|docm|dotx|dotm|odt|ott|odp|otp|pptx|pptm|ppsx|potx|xlsx|xlsm|epub)$/i;

export function contentType(src: Pick<DocumentSource, 'type' | 'file' | 'name'>): string {
  if (ZIPPED.test(src.name ?? '')) return 'application/octet-stream';
  if (src.type === 'image' || src.type === 'audio') {
    const ext = /\.([a-z0-9]+)$/i.exec(src.name ?? src.file)?.[1]?.toLowerCase() ?? '';
    return MEDIA[ext] ?? DOC_TYPES[src.type];
  }
  return DOC_TYPES[src.type];
}

/**
 * The reply for a request of document `id` (the raw path segment after /doc/). `lookup` asks the
 * engine where that document's bytes are; `sizeOf` stats that file. The body is never read here: a
 * 4 GB recording or a 500 MB PDF is streamed by the host, a range at a time.
 */
export async function serveDocument(
  rawId: string,
  lookup: (id: string) => Promise<DocumentSource>,
  sizeOf: (file: string) => Promise<number>,
  range?: string | null,
): Promise<DocReply> {
  const notFound: DocReply = { status: 404, headers: { 'content-type': 'text/plain' }, body: null };
  if (!DOC_ID.test(rawId)) return notFound;
  try {
    const src = await lookup(rawId);
    const size = await sizeOf(src.file);
    // Media elements seek with Range requests (an audio player jumps to #t= that way), and pdf.js
    // fetches only the parts of a large PDF it needs to show one page.
    const part = range ? byteRange(range, size) : null;
    if (part === 'unsatisfiable') return { status: 416, headers: { 'content-range': `bytes */${size}` }, body: null };
    const [start, end] = part ?? [0, size - 1];
    return {
      status: part ? 206 : 200,
      headers: {
        'content-type': contentType(src),
        'accept-ranges': 'bytes',
        'content-length': String(Math.max(0, end - start + 1)),
        ...(part ? { 'content-range': `bytes ${part[0]}-${part[1]}/${size}` } : {}),
        'content-security-policy': 'sandbox; default-src none',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        ...(src.stale ? { 'x-kb-stale': '1' } : {}),
      },
      body: size === 0 ? null : { file: src.file, start, end },
    };
  } catch (e) {
    const code = toErrorPayload(e).code;
    if (code === 'NOT_FOUND' || code === 'VANISHED' || code === 'INVALID_ARGUMENT') return notFound;
    // A file the engine points at but that cannot be read (deleted behind its back) is also gone.
    if ((e as { code?: string }).code === 'ENOENT') return notFound;
    return { status: 500, headers: { 'content-type': 'text/plain' }, body: null };
  }
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` → inclusive [start, end]; null when the header is not one range. */
export function byteRange(header: string, size: number): [number, number] | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return [start, end];
}

/**
 * The viewer's page of a structured document (GET /doc/<id>/view?at=<fragment>): HTML the engine
 * rendered and sanitised, served so that even a sanitiser's miss could do nothing — the CSP runs no
 * script but the one that hands Ctrl/⌘-K and Esc to the window (view-keys.ts, by its hash), and
 * nothing may load but inline styles and the document's own data: pictures.
 */
export const VIEW_CSP = `sandbox allow-scripts; default-src 'none'; script-src ${VIEW_KEYS_HASH}; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'`;

export interface ViewReply {
  status: number;
  headers: Record<string, string>;
  html: string | null;
}

export async function serveDocumentView(
  rawId: string,
  at: string | null,
  view: (id: string, at: string | undefined, q: string | undefined) => Promise<{ html: string; stale: boolean }>,
  q: string | null = null,
): Promise<ViewReply> {
  if (!DOC_ID.test(rawId) || (at !== null && at.length > 4000))
    return { status: 404, headers: { 'content-type': 'text/plain' }, html: null };
  try {
    const v = await view(rawId, at ?? undefined, q ? q.slice(0, 500) : undefined);
    return {
      status: 200,
      headers: {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': VIEW_CSP,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
        ...(v.stale ? { 'x-kb-stale': '1' } : {}),
      },
      html: v.html,
    };
  } catch (e) {
    const p = toErrorPayload(e);
    const status = p.code === 'NOT_FOUND' || p.code === 'VANISHED' ? 404 : p.code === 'INVALID_ARGUMENT' ? 400 : 500;
    // The frame shows why, as text (never as markup).
    return {
      status,
      headers: { 'content-type': 'text/plain; charset=utf-8', 'content-security-policy': VIEW_CSP },
      html: `${p.code}: ${p.message}`,
    };
  }
}
