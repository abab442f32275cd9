// The viewer's page for a structured document, opened at a citation: the document rendered as
// sanitised HTML with the cited blocks marked (`id="kb-hit"`, which the frame's URL scrolls to).
// Word and web pages show their own markup; slides, tables, books and mail are laid out here. The
// page is hostile input made safe twice: sanitize-html keeps no script, handler, frame, form, style
// sheet or remote address, and the host serves it under a CSP that allows no script but the hashed one
// that hands Ctrl/⌘-K and Esc to the window (shared/view-keys.ts), and no network.
import sanitizeHtml from 'sanitize-html';
import type { Anchor } from '../../shared/anchors.js';
import { anchorFragment } from '../../shared/citation.js';
import { VIEW_KEYS_HASH, VIEW_KEYS_SCRIPT } from '../../shared/view-keys.js';
import type { BlockDoc, DocBlock } from '../ingest/formats/blocks.js';
import { type BlockRange, blockRange } from './block-span.js';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'ul',
    'ol',
    'li',
    'dl',
    'dt',
    'dd',
    'blockquote',
    'pre',
    'code',
    'em',
    'strong',
    'b',
    'i',
    'u',
    's',
    'sub',
    'sup',
    'small',
    'mark',
    'br',
    'hr',
    'span',
    'div',
    'section',
    'article',
    'figure',
    'figcaption',
    'table',
    'thead',
    'tbody',
    'tfoot',
    'tr',
    'th',
    'td',
    'caption',
    'img',
    'a',
    'abbr',
    'cite',
    'q',
    'kbd',
    'samp',
    'var',
    'time',
    'del',
    'ins',
    'details',
    'summary',
    'address',
  ],
  // Links keep their text, not their target: the frame must never navigate to a page of the web.
  allowedAttributes: {
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    ol: ['start'],
    abbr: ['title'],
  },
  // Pictures only from inside the document (data: URIs mammoth makes); a remote image is never fetched.
  allowedSchemes: [],
  allowedSchemesByTag: { img: ['data'] },
  allowProtocolRelative: false,
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'template', 'iframe', 'object'],
  // A picture's address that is not the document's own data (a relative path, a server) is dropped.
  transformTags: {
    img: (tagName, attribs) => {
      const { src, ...rest } = attribs;
      return { tagName, attribs: src?.startsWith('data:image/') ? { ...rest, src } : rest };
    },
  },
};

export function sanitize(html: string, mark: Marker = (t) => t): string {
  return sanitizeHtml(html, { ...SANITIZE, textFilter: (text) => mark(text) });
}

/** Wraps the query's words in <mark> inside already-escaped text (the words are letters and digits only). */
type Marker = (escaped: string) => string;

export function queryMarker(q: string): Marker {
  const words = [...new Set((q.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).slice(0, 20))];
  if (words.length === 0) return (t) => t;
  // A query word marks the words it begins (the last word is typed as a prefix; "shoot" marks "shoots").
  const re = new RegExp(`(?<![\\p{L}\\p{N}&#])(${words.sort((a, b) => b.length - a.length).join('|')})[\\p{L}\\p{N}]*`, 'giu');
  return (t) => t.replace(re, '<mark>$&</mark>');
}

/** A block's own markup, or its text as a paragraph (a heading as a heading). */
function blockHtml(b: DocBlock, mark: Marker): string {
  const esc2 = (t: string): string => mark(esc(t));
  if (b.html) return sanitize(b.html, mark);
  if (b.table && !b.text.trim()) return '';
  if (b.table)
    return `<table>${b.text
      .split('\n')
      .map(
        (r) =>
          `<tr>${r
            .split(' | ')
            .map((c) => `<td>${esc2(c)}</td>`)
            .join('')}</tr>`,
      )
      .join('')}</table>`;
  if (b.heading) return `<h${Math.min(6, b.heading + 1)}>${esc2(b.text)}</h${Math.min(6, b.heading + 1)}>`;
  return `<p class="${b.text.startsWith('Notes: ') ? 'text notes' : 'text'}">${esc2(b.text)}</p>`;
}

/** Blocks in order, the cited run wrapped in one marked element. */
function flow(blocks: { b: DocBlock; i: number }[], hit: BlockRange | null, mark: Marker): string {
  let out = '';
  for (const { b, i } of blocks) {
    if (hit && i === hit.from) out += '<div id="kb-hit" class="hit">';
    out += `<div class="block" data-unit="${b.unit}">${blockHtml(b, mark)}</div>`;
    if (hit && i === hit.to) out += '</div>';
  }
  return out;
}

/** Up to this many rows around the cited ones: a million-row table is shown a window at a time. */
const ROW_WINDOW = 200;

function table(doc: BlockDoc, group: number, hit: BlockRange | null, mark: Marker): string {
  const g = doc.groups[group];
  const rows = doc.blocks.map((b, i) => ({ b, i })).filter(({ b }) => b.group === group);
  const centre = hit ? rows.findIndex(({ i }) => i === hit.from) : 0;
  const from = Math.max(0, centre - ROW_WINDOW);
  const to = Math.min(rows.length, (hit ? rows.findIndex(({ i }) => i === hit.to) : centre) + ROW_WINDOW);
  const head = g?.header ? `<thead><tr><th class="n">1</th>${g.header.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead>` : '';
  // The frame scrolls to the first cited row holding a word of the query (a chunk is many rows), else the first.
  const cells = (b: DocBlock): string[] => b.text.split(' | ').map((c) => mark(esc(c)));
  const marked = hit ? rows.find(({ b, i }) => i >= hit.from && i <= hit.to && cells(b).some((c) => c.includes('<mark>'))) : undefined;
  const target = marked?.i ?? hit?.from;
  const body = rows
    .slice(from, to)
    .map(({ b, i }) => {
      const inHit = hit && i >= hit.from && i <= hit.to;
      const id = i === target ? ' id="kb-hit"' : '';
      return `<tr${id}${inHit ? ' class="hit"' : ''}><td class="n">${b.unit}</td>${cells(b)
        .map((c) => `<td>${c}</td>`)
        .join('')}</tr>`;
    })
    .join('');
  const more = (n: number, where: string): string => (n > 0 ? `<p class="more">${n} more rows ${where}</p>` : '');
  return `${more(from, 'above')}<table class="rows">${head}<tbody>${body}</tbody></table>${more(rows.length - to, 'below')}`;
}

/** Links to the other groups (a book's chapters, a workbook's sheets), relative to this page. */
function nav(doc: BlockDoc, current: number, target: (g: number) => Anchor | null, q: string): string {
  if (doc.groups.length < 2) return '';
  const items = doc.groups
    .map((g, i) => {
      const a = target(i);
      if (!a) return '';
      const label = esc(g.name || `Part ${i + 1}`);
      return i === current
        ? `<li aria-current="page"><b>${label}</b></li>`
        : `<li><a href="view?at=${encodeURIComponent(anchorFragment(a))}${q ? `&amp;q=${encodeURIComponent(q)}` : ''}#kb-hit">${label}</a></li>`;
    })
    .join('');
  return `<nav class="toc"><ol>${items}</ol></nav>`;
}

function firstBlockOf(doc: BlockDoc, g: number): DocBlock | undefined {
  return doc.blocks.find((b) => b.group === g);
}

const STYLE = `
:root { color-scheme: light dark; font: 15px/1.55 system-ui, sans-serif; }
body { margin: 0 auto; padding: 12px 20px 40px; max-width: 900px; }
.hit mark, mark { background: #ffb703; color: #000; border-radius: 2px; }
.hit { background: color-mix(in srgb, #ffd84d 38%, transparent); outline: 2px solid #e0a800; border-radius: 3px; }
tr.hit { outline: none; } tr.hit td { background: color-mix(in srgb, #ffd84d 45%, transparent); } tr.hit td.n { color: inherit; opacity: 0.7; }
thead th { position: sticky; top: 0; z-index: 1; background-color: Canvas; box-shadow: 0 1px 0 #8886; }
table.rows td { white-space: nowrap; max-width: 40em; overflow: hidden; text-overflow: ellipsis; }
#kb-hit { scroll-margin-top: 2.2em; }
.block > :first-child { margin-top: 0.6em; }
table { border-collapse: collapse; font-size: 13px; }
td, th { border: 1px solid #8884; padding: 3px 7px; vertical-align: top; }
td.n, th.n { color: #888; text-align: right; font-variant-numeric: tabular-nums; }
.slide { border: 1px solid #8886; border-radius: 6px; padding: 4px 16px 10px; margin: 14px 0; }
.slide-n { color: #888; font-size: 12px; margin: 6px 0 0; }
.headers { border-bottom: 1px solid #8886; padding-bottom: 8px; margin-bottom: 8px; }
.headers div { margin: 1px 0; } .headers b { display: inline-block; min-width: 4.5em; color: #888; font-weight: 500; }
.toc ol { display: flex; flex-wrap: wrap; gap: 4px 14px; padding: 0; margin: 4px 0 12px; list-style: none; font-size: 13px; }
.toc a { color: inherit; }
.more { color: #888; font-size: 12px; }
img { max-width: 100%; height: auto; }
pre { white-space: pre-wrap; }
p.text { white-space: pre-line; }
p.notes { color: #777; font-size: 13px; border-top: 1px dashed #8886; padding-top: 6px; }
`;

/** The whole page at `anchor` (null: the document's start), the words of `q` marked. */
export function renderBlocks(doc: BlockDoc, anchor: Anchor | null, title: string, q = ''): string {
  const hit = anchor ? blockRange(doc, anchor) : null;
  const mark = queryMarker(q);
  const group = hit?.group ?? 0;
  let main: string;
  const all = doc.blocks.map((b, i) => ({ b, i }));
  switch (doc.cite) {
    case 'rows':
      main =
        nav(doc, group, (g) => ({ kind: 'rows', start: 2, end: 2, ...(doc.groups[g]?.name ? { sheet: doc.groups[g]!.name } : {}) }), q) +
        table(doc, group, hit, mark);
      break;
    case 'slide':
      main = doc.groups
        .map((_, g) => {
          const blocks = all.filter(({ b }) => b.group === g);
          const n = blocks[0]?.b.unit ?? g + 1;
          const marked = hit && hit.group === g;
          return `<section class="slide${marked ? ' hit' : ''}"${marked ? ' id="kb-hit"' : ''}><p class="slide-n">Slide ${n}</p>${blocks.map(({ b }) => blockHtml(b, mark)).join('')}</section>`;
        })
        .join('');
      break;
    case 'cfi':
      main =
        nav(
          doc,
          group,
          (g) => {
            const key = doc.groups[g]?.key;
            const first = firstBlockOf(doc, g);
            return key && first ? { kind: 'cfi', cfi: `${key}!${first.key ?? '/4'}` } : null;
          },
          q,
        ) +
        flow(
          all.filter(({ b }) => b.group === group),
          hit,
          mark,
        );
      break;
    case 'msg':
    case 'lines': {
      const g = doc.groups[group];
      const headers = (g?.headers ?? []).map(([k, v]) => `<div><b>${esc(k)}</b> ${esc(v)}</div>`).join('');
      const body = all.filter(({ b }) => b.group === group);
      main =
        nav(doc, group, (i) => ({ kind: 'msg', id: doc.groups[i]?.key ?? String(i + 1) }), q) +
        `<div class="headers"${anchor?.kind === 'lines' && hit ? '' : ' id="kb-hit"'}>${headers}</div>` +
        flow(
          body.filter(({ b }) => b.text.trim()),
          // Lines of a message are marked; a whole message (#msg=) is what the page shows.
          hit && anchor?.kind === 'lines' ? hit : null,
          mark,
        ) +
        (body.some(({ b }) => b.text.trim()) ? '' : '<p class="more">(no text in the body)</p>');
      break;
    }
    default:
      main = flow(all, hit, mark);
  }
  const note = anchor && !hit ? `<p class="more">Nothing at #${esc(anchorFragment(anchor))} in this version of the document.</p>` : '';
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src ${VIEW_KEYS_HASH}; style-src 'unsafe-inline'; img-src data:"><title>${esc(title)}</title><style>${STYLE}</style><script>${VIEW_KEYS_SCRIPT}</script></head><body>${note}${main}</body></html>`;
}
