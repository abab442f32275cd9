// An HTML tree → blocks: what Word (through mammoth), saved web pages and e-book chapters share.
// A leaf block is a paragraph, heading, list item, preformatted text, table or caption; containers
// (div, section, lists, a list item holding a list) are walked into, and text that sits between
// their blocks becomes a block of its own. Each block remembers its element path (for EPUB CFIs).
import { parseHTML } from 'linkedom';
import type { DocBlock } from './blocks.js';

/** The slice of the DOM the walker uses (linkedom's types are loose). */
interface DomNode {
  nodeType: number;
  localName?: string;
  textContent: string | null;
  outerHTML?: string;
  childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
}

export interface DomBlock {
  text: string;
  html: string;
  heading?: number;
  /** Element steps from the root, EPUB CFI style: /4/2/10 (even numbers, 1-based element index × 2). */
  path: string;
}

const LEAF = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'table', 'figcaption', 'dt', 'dd', 'caption', 'address', 'summary']);
const CONTAINER = new Set([
  'body',
  'div',
  'section',
  'article',
  'main',
  'ul',
  'ol',
  'dl',
  'li',
  'blockquote',
  'figure',
  'details',
  'center',
  'header',
  'footer',
  'aside',
  'nav',
  'form',
  'fieldset',
  'hgroup',
  'span-block',
]);
const SKIP = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'head',
  'iframe',
  'object',
  'embed',
  'button',
  'select',
  'input',
  'textarea',
  'canvas',
]);
const BREAKS = new Set(['br', 'hr']);

const squash = (s: string): string => s.replace(/[ \t\r\n\f\u00a0]+/g, ' ').trim();

function isBlockish(n: DomNode): boolean {
  return n.nodeType === 1 && (LEAF.has(n.localName ?? '') || CONTAINER.has(n.localName ?? '') || SKIP.has(n.localName ?? ''));
}

/** Text of an inline run, with <br> as a line break. */
function inlineText(n: DomNode): string {
  if (n.nodeType === 3) return n.textContent ?? '';
  if (n.nodeType !== 1 || SKIP.has(n.localName ?? '')) return '';
  if (BREAKS.has(n.localName ?? '')) return '\n';
  let s = '';
  for (const c of Array.from(n.childNodes)) s += inlineText(c);
  return s;
}

function leafText(n: DomNode): string {
  const tag = n.localName ?? '';
  if (tag === 'pre') return (n.textContent ?? '').replace(/\s+$/, '');
  if (tag === 'table') {
    // Row by row, cells apart: a table's text reads as lines of "a | b | c".
    const rows: string[] = [];
    const walk = (x: DomNode): void => {
      for (const c of Array.from(x.childNodes)) {
        if (c.nodeType !== 1) continue;
        if (c.localName === 'tr') {
          const cells = Array.from(c.childNodes).filter((d) => d.nodeType === 1 && (d.localName === 'td' || d.localName === 'th'));
          const line = cells.map((d) => squash(inlineText(d))).join(' | ');
          if (line.replace(/[| ]/g, '')) rows.push(line);
        } else walk(c);
      }
    };
    walk(n);
    return rows.join('\n');
  }
  return inlineText(n)
    .split('\n')
    .map(squash)
    .filter((l) => l)
    .join('\n');
}

/**
 * Blocks under `root`. `pathOf` is root's own CFI path ('' for a body walked on its own); `keepEmpty`
 * keeps empty paragraphs, which Word counts (the paragraph numbers of `#para=` must match its count).
 */
export function domBlocks(root: DomNode, opts: { rootPath?: string; keepEmpty?: boolean; markup?: boolean } = {}): DomBlock[] {
  const out: DomBlock[] = [];
  const visit = (el: DomNode, path: string): void => {
    let run: DomNode[] = [];
    let runPath = path;
    const flushRun = (): void => {
      const text = run
        .map(inlineText)
        .join('')
        .split('\n')
        .map(squash)
        .filter((l) => l)
        .join('\n');
      if (text)
        out.push({
          text,
          html: opts.markup ? run.map((r) => (r.nodeType === 1 ? (r.outerHTML ?? '') : escapeText(r.textContent ?? ''))).join('') : '',
          path: runPath,
        });
      run = [];
    };
    let elementIndex = 0;
    for (const c of Array.from(el.childNodes)) {
      if (c.nodeType === 1) elementIndex++;
      const childPath = `${path}/${elementIndex * 2}`;
      if (!isBlockish(c)) {
        if (c.nodeType === 1 || c.nodeType === 3) {
          if (run.length === 0) runPath = c.nodeType === 1 ? childPath : path;
          run.push(c);
        }
        continue;
      }
      flushRun();
      const tag = c.localName ?? '';
      if (SKIP.has(tag)) continue;
      if (LEAF.has(tag) || (tag === 'li' && !Array.from(c.childNodes).some(isBlockish))) {
        const text = leafText(c);
        const level = /^h([1-6])$/.exec(tag);
        if (text || opts.keepEmpty)
          out.push({
            text,
            html: opts.markup ? (c.outerHTML ?? '') : '',
            path: childPath,
            ...(level ? { heading: Number(level[1]) } : {}),
          });
      } else visit(c, childPath);
    }
    flushRun();
  };
  visit(root, opts.rootPath ?? '');
  return out;
}

/** Blocks of a one-part document, numbered in order (Word's paragraphs, a page's blocks). */
export function numbered(blocks: DomBlock[]): DocBlock[] {
  return blocks.map((b, i) => ({
    text: b.text,
    html: b.html,
    unit: i + 1,
    group: 0,
    ...(b.heading !== undefined ? { heading: b.heading } : {}),
  }));
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** An HTML string's document (linkedom: fast, no layout, never runs scripts or fetches anything). */
export function htmlDocument(html: string): {
  document: {
    body: DomNode | null;
    title: string;
    documentElement: DomNode;
    querySelector(s: string): DomNode | null;
    querySelectorAll(s: string): ArrayLike<DomNode>;
  };
} {
  // A fragment (an exported note, a mail part, a chapter without <body>) is given a body, or linkedom
  // builds a tree whose body is empty.
  const whole = /<body[\s>]/i.test(html)
    ? html
    : `<!doctype html><html><head></head><body>${html.replace(/^\s*(<\?xml[^>]*>|<!doctype[^>]*>)/gi, '')}</body></html>`;
  return parseHTML(whole) as unknown as ReturnType<typeof htmlDocument>;
}
