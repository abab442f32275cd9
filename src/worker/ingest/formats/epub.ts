// E-books (.epub): the package (OPF) gives the title, author, date, subjects and the reading order
// (spine); each chapter's XHTML is cut into blocks by headings, the chapter's title as the section.
// A passage is cited by an EPUB CFI to its first block (a range CFI to its last when it spans
// several): `#epubcfi(/6/14[chap05]!/4/2/10)`, which EPUB readers open at that place.
import { posix } from 'node:path';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, BlockGroup, DocBlock } from './blocks.js';
import { domBlocks, htmlDocument } from './dom-blocks.js';
import { all, elements, first, parseXml, type XmlNode } from './xml.js';
import { openZip, zipText, type ZipLimits } from './zip.js';

const text = (n: XmlNode | null): string | null => n?.textContent?.replace(/\s+/g, ' ').trim() || null;

/** What opens a book before its first chapter, by its name in the contents or its file's id. */
const FRONT_MATTER =
  /^(cover|title ?page|titlepage|half ?title|contents|table of contents|toc|copyright|dedication|epigraph|frontmatter|front matter|imprint|colophon)\b/i;

/** Chapter file → its label in the table of contents (EPUB 3 nav or EPUB 2 NCX). */
async function tocLabels(
  read: (href: string) => Promise<string | null>,
  manifest: Map<string, { href: string; type: string; props: string }>,
  tocId: string | null,
): Promise<Map<string, string>> {
  const labels = new Map<string, string>();
  const nav = [...manifest.values()].find((m) => m.props.split(/\s+/).includes('nav'));
  const ncx = tocId ? manifest.get(tocId) : [...manifest.values()].find((m) => m.type === 'application/x-dtbncx+xml');
  if (nav) {
    const html = await read(nav.href);
    if (html) {
      const { document } = htmlDocument(html);
      for (const a of Array.from(document.querySelectorAll('nav a[href]'))) {
        const href = posix.normalize(posix.join(posix.dirname(nav.href), (a.getAttribute?.('href') ?? '').split('#')[0]!));
        const label = (a.textContent ?? '').replace(/\s+/g, ' ').trim();
        if (label && !labels.has(href)) labels.set(href, label);
      }
    }
  } else if (ncx) {
    const xml = await read(ncx.href);
    if (xml) {
      for (const p of all(parseXml(xml, ncx.href), 'navPoint')) {
        const src = first(p, 'content')?.getAttribute('src')?.split('#')[0];
        const label = text(first(p, 'text'));
        if (src && label) {
          const href = posix.normalize(posix.join(posix.dirname(ncx.href), src));
          if (!labels.has(href)) labels.set(href, label);
        }
      }
    }
  }
  return labels;
}

export async function readEpub(bytes: Uint8Array, limits: ZipLimits, markup: boolean): Promise<BlockDoc> {
  const zip = await openZip(bytes, limits, 'an e-book');
  if (zip.file('META-INF/encryption.xml')) {
    const enc = (await zipText(zip, 'META-INF/encryption.xml')) ?? '';
    // Font obfuscation is "encryption" too; content under DRM is what makes a book unreadable.
    if (/EncryptedData/.test(enc) && !/http:\/\/www\.idpf\.org\/2008\/embedding|http:\/\/ns\.adobe\.com\/pdf\/enc#RC/.test(enc)) {
      throw new KbError('ENCRYPTED', 'an e-book under DRM: kb cannot read its chapters');
    }
  }
  const container = await zipText(zip, 'META-INF/container.xml');
  const opfPath = container ? first(parseXml(container, 'META-INF/container.xml'), 'rootfile')?.getAttribute('full-path') : null;
  if (!opfPath) throw new KbError('PARSE_FAILED', 'not an e-book (no META-INF/container.xml naming its package)');
  const opfXml = await zipText(zip, opfPath);
  if (!opfXml) throw new KbError('PARSE_FAILED', `the e-book's package ${opfPath} is missing`);
  const pkg = parseXml(opfXml, opfPath);
  const dir = posix.dirname(opfPath);
  const resolveHref = (href: string): string => posix.normalize(posix.join(dir, decodeURIComponent(href)));
  const read = (path: string): Promise<string | null> => zipText(zip, path);

  const manifest = new Map<string, { href: string; type: string; props: string }>();
  for (const item of all(pkg, 'item')) {
    const id = item.getAttribute('id');
    const href = item.getAttribute('href');
    if (id && href)
      manifest.set(id, {
        href: resolveHref(href),
        type: item.getAttribute('media-type') ?? '',
        props: item.getAttribute('properties') ?? '',
      });
  }
  const spineEl = first(pkg, 'spine');
  if (!spineEl) throw new KbError('PARSE_FAILED', 'the e-book has no reading order (no spine)');
  const spineStep = (elements(pkg).indexOf(spineEl) + 1) * 2;
  const labels = await tocLabels(read, manifest, spineEl.getAttribute('toc'));

  const blocks: DocBlock[] = [];
  const groups: BlockGroup[] = [];
  let chapters = 0;
  for (const [j, ref] of elements(spineEl)
    .filter((e) => e.localName === 'itemref')
    .entries()) {
    const idref = ref.getAttribute('idref') ?? '';
    const item = manifest.get(idref);
    if (!item || !/html|xml/.test(item.type)) continue;
    const html = await read(item.href);
    if (html === null) continue;
    const { document } = htmlDocument(html);
    const body = document.body;
    if (!body) continue;
    const bodyStep = (elements(document.documentElement as unknown as XmlNode).indexOf(body as unknown as XmlNode) + 1) * 2;
    const found = domBlocks(body, { rootPath: `/${bodyStep}`, markup });
    const g = groups.length;
    const firstHeading = found.find((b) => b.heading !== undefined && b.text)?.text;
    const name = labels.get(item.href) ?? firstHeading ?? (document.title.trim() || `Chapter ${j + 1}`);
    // Chapters are numbered as a reader counts them: front matter (cover, title page, contents,
    // copyright, dedication) and files with no text are not chapters.
    const front = FRONT_MATTER.test(name) || FRONT_MATTER.test(idref) || /\bnav\b/.test(item.props) || !found.some((b) => b.text.trim());
    if (!front) chapters++;
    groups.push({ name, key: `/${spineStep}/${(j + 1) * 2}[${idref}]`, ...(front ? {} : { chapter: chapters }) });
    for (const b of found)
      blocks.push({
        text: b.text,
        html: b.html,
        unit: blocks.length + 1,
        group: g,
        key: b.path,
        ...(b.heading !== undefined ? { heading: b.heading } : {}),
      });
  }
  if (groups.length === 0) throw new KbError('PARSE_FAILED', 'the e-book has no readable chapters');
  const subjects = all(pkg, 'dc:subject')
    .map((s) => text(s))
    .filter((s): s is string => !!s && s.length <= 64);
  return {
    title: text(first(pkg, 'dc:title')),
    author: text(first(pkg, 'dc:creator')),
    date: text(first(pkg, 'dc:date')),
    tags: subjects,
    blocks,
    groups,
    cite: 'cfi',
  };
}
