// Saved web pages and exported notes: Readability finds the article (navigation, ads, footers and
// comment widgets are dropped), and its blocks are cut by headings. Citations are W3C text fragments
// (`#:~:text=first words,last words`), the standard browsers scroll to. Nothing of the page runs:
// linkedom builds a tree without scripts, styles or network.
import { Readability } from '@mozilla/readability';
import type { BlockDoc } from './blocks.js';
import { decodeText } from '../decode-text.js';
import { domBlocks, htmlDocument, numbered } from './dom-blocks.js';

const BOILERPLATE =
  'script, style, noscript, nav, header, footer, aside, form, iframe, template, dialog, [hidden], [role=navigation], [role=banner], [role=contentinfo], [role=dialog], [aria-hidden=true], [style*="display:none"], [style*="display: none"]';

/** The charset a page declares in its first KB, when the bytes are not UTF-8. */
function declaredCharset(bytes: Uint8Array): string | null {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 2048));
  return /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase() ?? null;
}

function decodeHtml(bytes: Uint8Array): string {
  const declared = declaredCharset(bytes);
  if (declared && declared !== 'utf-8' && declared !== 'utf8') {
    try {
      return new TextDecoder(declared).decode(bytes);
    } catch {
      // an unknown label: guess from the bytes
    }
  }
  return decodeText(bytes).text;
}

type Doc = ReturnType<typeof htmlDocument>['document'];

function metaContent(doc: Doc, ...selectors: string[]): string | null {
  for (const s of selectors) {
    const v = doc.querySelector(s)?.getAttribute?.('content')?.trim();
    if (v) return v;
  }
  return null;
}

const textLength = (s: string | null | undefined): number => (s ?? '').replace(/\s+/g, ' ').trim().length;

export async function readHtml(bytes: Uint8Array, markup: boolean): Promise<BlockDoc> {
  const html = decodeHtml(bytes);
  const { document: page } = htmlDocument(html);
  const title = metaContent(page, 'meta[property="og:title"]') ?? (page.title.trim() || null);
  const author = metaContent(page, 'meta[name="author"]', 'meta[property="article:author"]');
  const date = metaContent(page, 'meta[property="article:published_time"]', 'meta[name="date"]', 'meta[name="dcterms.created"]');
  const tags = (metaContent(page, 'meta[name="keywords"]') ?? '')
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t && t.length <= 64);

  // The whole page without its obvious boilerplate: what is kept when nothing better is found.
  for (const el of Array.from(page.querySelectorAll(BOILERPLATE))) (el as unknown as { remove(): void }).remove();
  const pageText = textLength(page.body?.textContent);

  let root = page.body;
  // The author's own word on where the content is (<main>, role=main, a page's one <article>) beats
  // a guess; Readability guesses for pages that do not say.
  const articles = Array.from(page.querySelectorAll('article'));
  const marked = page.querySelector('main, [role=main]') ?? (articles.length === 1 ? articles[0]! : null);
  if (marked && textLength(marked.textContent) >= Math.min(200, 0.5 * pageText)) root = marked;
  else
    try {
      // Readability rewrites the tree it reads, and judges the page as it came: it gets a copy of its own.
      const article = new Readability(htmlDocument(html).document as unknown as Document, { charThreshold: 200 }).parse();
      const articleText = textLength(article?.textContent);
      // A short note is all content: Readability may keep a fraction of it. Its article is taken when it
      // holds a fair share of the page's text.
      if (article?.content && articleText >= 0.25 * pageText) root = htmlDocument(article.content).document.body;
    } catch {
      // Readability gives up on some trees; the page without boilerplate is then the article.
    }
  const blocks = root ? domBlocks(root, { markup }) : [];
  return {
    title,
    author,
    date,
    tags,
    blocks: numbered(blocks),
    groups: [{ name: '' }],
    cite: 'text',
  };
}
