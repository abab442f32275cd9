// Citation URIs: a file URI with a W3C media fragment (docs/design.md, "Citations").
// Pure string work, no Node: the renderer formats and parses these too.
import type { Anchor } from './anchors.js';
import type { Citation } from './wire.js';

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
      return a.col_start !== undefined && a.col_end !== undefined
        ? `L${a.start}C${a.col_start}-L${a.end}C${a.col_end}`
        : `L${a.start}-L${a.end}`;
    case 'page':
      return `page=${a.page}`;
    case 'time':
      return `t=${trimNum(a.start)},${trimNum(a.end)}`;
    case 'region':
      return `xywh=${a.x},${a.y},${a.w},${a.h}`;
    case 'para':
      return a.start === a.end ? `para=${a.start}` : `para=${a.start}-${a.end}`;
    case 'slide':
      return a.slide_end && a.slide_end !== a.slide ? `slide=${a.slide}-${a.slide_end}` : `slide=${a.slide}`;
    case 'rows': {
      const r = a.start === a.end ? `row=${a.start}` : `row=${a.start}-${a.end}`;
      return a.sheet === undefined ? r : `sheet=${encodeURIComponent(a.sheet)}&${r}`;
    }
    case 'text':
      return `:~:text=${a.prefix ? `${textDirective(a.prefix)}-,` : ''}${textDirective(a.start)}${a.end ? `,${textDirective(a.end)}` : ''}${a.suffix ? `,-${textDirective(a.suffix)}` : ''}`;
    case 'cfi':
      return `epubcfi(${a.cfi})`;
    case 'msg':
      return `msg=${encodeURIComponent(a.id)}`;
  }
}

/** A text directive's own separators (`,` `-` `&`) are percent-encoded along with everything URIs reserve. */
function textDirective(s: string): string {
  return encodeURIComponent(s).replace(/-/g, '%2D');
}

/** The fragments of the structured formats; null when the fragment is none of them. */
function structuredAnchor(frag: string): Anchor | null {
  let m: RegExpMatchArray | null;
  if ((m = frag.match(/^para=(\d+)(?:-(\d+))?$/))) return { kind: 'para', start: +m[1]!, end: +(m[2] ?? m[1]!) };
  if ((m = frag.match(/^slide=(\d+)(?:-(\d+))?$/))) {
    const end = m[2] === undefined ? undefined : +m[2];
    return { kind: 'slide', slide: +m[1]!, ...(end !== undefined && end !== +m[1]! ? { slide_end: end } : {}) };
  }
  if ((m = frag.match(/^(?:sheet=([^&]*)&)?row=(\d+)(?:-(\d+|\*))?$/))) {
    const start = +m[2]!;
    const end = m[3] === undefined ? start : m[3] === '*' ? Number.MAX_SAFE_INTEGER : +m[3];
    return { kind: 'rows', start, end, ...(m[1] !== undefined ? { sheet: decodeURIComponent(m[1]) } : {}) };
  }
  if ((m = frag.match(/^:~:text=(.+)$/))) {
    // prefix- and -suffix parts say which occurrence of the quoted words is meant, as browsers read them.
    const all = m[1]!.split('&')[0]!.split(',');
    const prefix = all[0]?.endsWith('-') ? decodeURIComponent(all.shift()!.slice(0, -1)) : undefined;
    const suffix = all.length > 1 && all[all.length - 1]!.startsWith('-') ? decodeURIComponent(all.pop()!.slice(1)) : undefined;
    const parts = all.map((p) => decodeURIComponent(p));
    if (parts.length === 0 || parts.length > 2 || !parts[0]) return null;
    return {
      kind: 'text',
      start: parts[0],
      ...(parts[1] ? { end: parts[1] } : {}),
      ...(prefix ? { prefix } : {}),
      ...(suffix ? { suffix } : {}),
    };
  }
  if ((m = frag.match(/^epubcfi\((.+)\)$/))) return { kind: 'cfi', cfi: m[1]! };
  if ((m = frag.match(/^msg=(.+)$/))) return { kind: 'msg', id: decodeURIComponent(m[1]!) };
  return null;
}

function trimNum(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Math.round(n * 1000) / 1000);
}

export function makeCitation(path: string, anchor: Anchor, section?: string): Citation {
  const uri = `${pathToFileUri(path)}#${anchorFragment(anchor)}`;
  const extra = section ? { section } : {};
  return { ...anchor, uri, path, ...extra } as Citation;
}

/** A Media Fragments time: seconds (`754.5`) or a clock (`12:34`, `1:02:03.5`); undefined when it is neither. */
function nptSeconds(t: string): number | undefined {
  const parts = t.split(':');
  if (parts.length > 3 || parts.some((p) => !/^\d+(?:\.\d+)?$/.test(p))) return undefined;
  return parts.reduce((s, p) => s * 60 + Number(p), 0);
}

export function parseCitationUri(uri: string): Citation {
  const hash = uri.indexOf('#');
  if (hash < 0) throw new Error(`citation URI has no fragment: ${uri}`);
  const path = fileUriToPath(uri.slice(0, hash));
  const frag = uri.slice(hash + 1);
  let m: RegExpMatchArray | null;
  if ((m = frag.match(/^L(\d+)-L(\d+)$/))) return makeCitation(path, { kind: 'lines', start: +m[1]!, end: +m[2]! });
  if ((m = frag.match(/^L(\d+)C(\d+)-L(\d+)C(\d+)$/)))
    return makeCitation(path, { kind: 'lines', start: +m[1]!, col_start: +m[2]!, end: +m[3]!, col_end: +m[4]! });
  if ((m = frag.match(/^L(\d+)$/))) return makeCitation(path, { kind: 'lines', start: +m[1]!, end: +m[1]! });
  if ((m = frag.match(/^page=(\d+)$/))) return makeCitation(path, { kind: 'page', page: +m[1]! });
  if ((m = frag.match(/^t=(?:npt:)?([\d.:]*)(?:,([\d.:]+))?$/))) {
    // Media Fragments: #t=10,20, #t=10 (an instant: the transcript's line playing then) and #t=,20 (from the start).
    const start = m[1] ? nptSeconds(m[1]) : 0;
    const end = m[2] !== undefined ? nptSeconds(m[2]) : m[1] ? start : undefined;
    if (start !== undefined && end !== undefined) return makeCitation(path, { kind: 'time', start, end });
  }
  if ((m = frag.match(/^xywh=(\d+),(\d+),(\d+),(\d+)$/)))
    return makeCitation(path, { kind: 'region', x: +m[1]!, y: +m[2]!, w: +m[3]!, h: +m[4]! });
  const structured = structuredAnchor(frag);
  if (structured) return makeCitation(path, structured);
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
      where =
        c.col_start !== undefined && c.col_end !== undefined
          ? c.start === c.end
            ? `${displayPath} · L${c.start} chars ${c.col_start}–${c.col_end}`
            : `${displayPath} · L${c.start}:${c.col_start}–L${c.end}:${c.col_end}`
          : c.start === c.end
            ? `${displayPath} · L${c.start}`
            : `${displayPath} · L${c.start}–${c.end}`;
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
    case 'para':
      where = c.start === c.end ? `${displayPath} · ¶ ${c.start}` : `${displayPath} · ¶ ${c.start}–${c.end}`;
      break;
    case 'slide':
      where = c.slide_end ? `${displayPath} · slides ${c.slide}–${c.slide_end}` : `${displayPath} · slide ${c.slide}`;
      break;
    case 'rows': {
      const r = c.start === c.end ? `row ${c.start}` : `rows ${c.start}–${c.end === Number.MAX_SAFE_INTEGER ? 'end' : c.end}`;
      where = `${displayPath} · ${c.sheet === undefined ? r : `${c.sheet} ${r}`}`;
      break;
    }
    case 'text':
      where = `${displayPath} · “${shorten(c.start)}”`;
      break;
    case 'cfi': {
      // A CFI counts the cover and title page as files of the reading order; a reader does not.
      const spine = /^\/\d+\/(\d+)/.exec(c.cfi);
      where =
        c.chapter !== undefined
          ? `${displayPath} · ch. ${c.chapter}`
          : spine
            ? `${displayPath} · part ${Number(spine[1]) / 2}`
            : `${displayPath} · ${c.cfi}`;
      break;
    }
    case 'msg':
      // A message is known to a person by its subject (the section), not its Message-ID: the id stays
      // in the URI, and is said only where there is no subject.
      where = /^\d+$/.test(c.id)
        ? `${displayPath} · message ${c.id}`
        : c.section
          ? `${displayPath} · message`
          : `${displayPath} · message <${shorten(c.id)}>`;
      break;
  }
  return c.section ? `${where} § ${c.section.split(' > ').join(' › ')}` : where;
}

function shorten(s: string, max = 40): string {
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Seconds as a clock: 754 → `12:34` (a recording's moment or length). */
export function formatClock(s: number): string {
  const m = Math.floor(s / 60);
  const sec = Math.floor(s % 60);
  return `${m}:${String(sec).padStart(2, '0')}`;
}
