// Saved web pages and exported notes: Readability finds the article (navigation, ads, footers and
// comment widgets are dropped), and its blocks are cut by headings. Citations are W3C text fragments
// (`#:~:text=first words,last words`), the standard browsers scroll to. Nothing of the page runs:
// linkedom builds a tree without scripts, styles or network.
import { Readability } from '@mozilla/readability';
import type { BlockDoc } from './blocks.js';
import { decodeText } from '../detect.js';
import { domBlocks, htmlDocument } from './dom-blocks.js';

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

export async function readHtml(bytes: Uint8Array, markup: boolean): Promise<BlockDoc> {
  const html = decodeHtml(bytes);
  const { document } = htmlDocument(html);
  const title = metaContent(document, 'meta[property="og:title"]') ?? (document.title.trim() || null);
  const author = metaContent(document, 'meta[name="author"]', 'meta[property="article:author"]');
  const date = metaContent(document, 'meta[property="article:published_time"]', 'meta[name="date"]', 'meta[name="dcterms.created"]');
  const tags = (metaContent(document, 'meta[name="keywords"]') ?? '').split(/[,;]/).map((t) => t.trim()).filter((t) => t && t.length <= 64);

  // The whole page without its obvious boilerplate: what is kept when Readability finds no article.
  const fallback = htmlDocument(html).document;
  for (const el of Array.from(fallback.querySelectorAll(BOILERPLATE))) (el as unknown as { remove(): void }).remove();
  const fallbackText = (fallback.body?.textContent ?? '').replace(/\s+/g, ' ').trim();

  let root = fallback.body;
  // The author's own word on where the content is (<main>, role=main, a page's one <article>) beats
  // a guess; Readability guesses for pages that do not say.
  const articles = Array.from(fallback.querySelectorAll('article'));
  const marked = fallback.querySelector('main, [role=main]') ?? (articles.length === 1 ? articles[0]! : null);
  if (marked && (marked.textContent ?? '').replace(/\s+/g, ' ').trim().length >= Math.min(200, 0.5 * fallbackText.length)) root = marked;
  else try {
    const article = new Readability(document as unknown as Document, { charThreshold: 200 }).parse();
    const articleText = (article?.textContent ?? '').replace(/\s+/g, ' ').trim();
    // A short note is all content: Readability may keep a fraction of it. Its article is taken when it
    // holds a fair share of the page's text.
    if (article?.content && articleText.length >= 0.25 * fallbackText.length) root = htmlDocument(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
  } catch {
    // Readability gives up on some trees; the page without boilerplate is then the article.
  }
  const blocks = root ? domBlocks(root, { markup }) : [];
  return {
    title,
    author,
    date,
    tags,
    blocks: blocks.map((b, i) => ({ text: b.text, html: b.html, unit: i + 1, group: 0, ...(b.heading !== undefined ? { heading: b.heading } : {}) })),
    groups: [{ name: '' }],
    cite: 'text',
  };
}
