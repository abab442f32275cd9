// Citation URIs: a file URI with a W3C media fragment (design.md, "Citations").
// Pure string work, no Node: the renderer formats and parses these too.
import type { Anchor, Citation } from './wire.js';

/** Percent-encode an absolute POSIX or Windows path as a file:// URI. */
export function pathToFileUri(path: string): string {
  let p = path.replace(/\\/g, '/');
  if (/^[A-Za-z]:\//.test(p)) p = '/' + p;
  const encoded = p
    .split('/')
    .map((seg, i) => (i === 1 && /^[A-Za-z]:$/.test(seg) ? seg : encodeURIComponent(seg)))
    .join('/');
  return 'file://' + encoded;
}

export function fileUriToPath(uri: string): string {
  if (!uri.startsWith('file://')) throw new Error(`not a file URI: ${uri}`);
  const decoded = decodeURIComponent(uri.slice('file://'.length));
  return /^\/[A-Za-z]:\//.test(decoded) ? decoded.slice(1) : decoded;
}

export function anchorFragment(a: Anchor): string {
  switch (a.kind) {
    case 'lines':
      return `L${a.start}-L${a.end}`;
    case 'page':
      return `page=${a.page}`;
    case 'time':
      return `t=${trimNum(a.start)},${trimNum(a.end)}`;
    case 'region':
      return `xywh=${a.x},${a.y},${a.w},${a.h}`;
  }
}

function trimNum(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

export function makeCitation(path: string, anchor: Anchor, section?: string): Citation {
  const uri = `${pathToFileUri(path)}#${anchorFragment(anchor)}`;
  const extra = section ? { section } : {};
  return { ...anchor, uri, path, ...extra } as Citation;
}

export function parseCitationUri(uri: string): Citation {
  const hash = uri.indexOf('#');
  if (hash < 0) throw new Error(`citation URI has no fragment: ${uri}`);
  const path = fileUriToPath(uri.slice(0, hash));
  const frag = uri.slice(hash + 1);
  let m: RegExpMatchArray | null;
  if ((m = frag.match(/^L(\d+)-L(\d+)$/))) return makeCitation(path, { kind: 'lines', start: +m[1]!, end: +m[2]! });
  if ((m = frag.match(/^L(\d+)$/))) return makeCitation(path, { kind: 'lines', start: +m[1]!, end: +m[1]! });
  if ((m = frag.match(/^page=(\d+)$/))) return makeCitation(path, { kind: 'page', page: +m[1]! });
  if ((m = frag.match(/^t=([\d.]+),([\d.]+)$/))) return makeCitation(path, { kind: 'time', start: +m[1]!, end: +m[2]! });
  if ((m = frag.match(/^xywh=(\d+),(\d+),(\d+),(\d+)$/)))
    return makeCitation(path, { kind: 'region', x: +m[1]!, y: +m[2]!, w: +m[3]!, h: +m[4]! });
  throw new Error(`unknown citation fragment: #${frag}`);
}

/**
 * Human label, the same in the CLI and the UI: `setup.md · L12–34 § Setup › Linux`,
 * `report.pdf · p. 7`, `talk.mp3 · 12:34–13:32`, `scan.png · region 36,92 582×269`.
 */
export function citationLabel(c: Citation, displayPath: string): string {
  let where: string;
  switch (c.kind) {
    case 'lines':
      where = c.start === c.end ? `${displayPath} · L${c.start}` : `${displayPath} · L${c.start}–${c.end}`;
      break;
    case 'page':
      where = c.page_end && c.page_end !== c.page ? `${displayPath} · pp. ${c.page}–${c.page_end}` : `${displayPath} · p. ${c.page}`;
      break;
    case 'time':
      where = `${displayPath} · ${formatClock(c.start)}–${formatClock(c.end)}`;
      break;
    case 'region':
      where = `${displayPath} · region ${c.x},${c.y} ${c.w}×${c.h}`;
      break;
  }
  return c.section ? `${where} § ${c.section.split(' > ').join(' › ')}` : where;
}

function formatClock(s: number): string {
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return `${m}:${String(sec).padStart(2, '0')}`;
}
