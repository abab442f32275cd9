// OpenDocument text (.odt) and presentations (.odp): content.xml read as a tree. A text document's
// paragraphs, headings, list items and tables are numbered in order (`#para=`); a presentation's
// pages are slides (`#slide=`), each one chunk with its title, its text and its speaker notes.
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, DocBlock, BlockGroup } from './blocks.js';
import { odfMeta } from './office-meta.js';
import { all, elements, first, parseXml, type XmlNode } from './xml.js';
import { openZip, zipText, type ZipLimits } from './zip.js';

/** A paragraph's text: spaces (text:s), tabs and line breaks as ODF encodes them; notes left out. */
function odfText(n: XmlNode): string {
  if (n.nodeType === 3) return n.textContent ?? '';
  if (n.nodeType !== 1) return '';
  switch (n.localName) {
    case 'text:s':
      return ' '.repeat(Math.min(100, Number(n.getAttribute('text:c') ?? '1') || 1));
    case 'text:tab':
      return '\t';
    case 'text:line-break':
      return '\n';
    case 'text:note':
    case 'office:annotation':
      return '';
  }
  let s = '';
  for (const c of Array.from(n.childNodes)) s += odfText(c);
  return s;
}

const tidy = (s: string): string =>
  s
    .split('\n')
    .map((l) => l.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter((l) => l)
    .join('\n');

function tableText(t: XmlNode): string {
  return all(t, 'table:table-row')
    .map((r) =>
      elements(r)
        .filter((c) => c.localName === 'table:table-cell')
        .map((c) => tidy(odfText(c)).replace(/\n/g, ' '))
        .join(' | '),
    )
    .filter((l) => l.replace(/[| ]/g, ''))
    .join('\n');
}

/** Body paragraphs of a text document, in order: what `#para=N` counts. */
function textBlocks(body: XmlNode): DocBlock[] {
  const out: DocBlock[] = [];
  const visit = (n: XmlNode): void => {
    for (const c of elements(n)) {
      switch (c.localName) {
        case 'text:p':
        case 'text:h': {
          const text = tidy(odfText(c));
          const level = c.localName === 'text:h' ? Number(c.getAttribute('text:outline-level') ?? '1') || 1 : undefined;
          out.push({ text, html: '', unit: out.length + 1, group: 0, ...(level ? { heading: Math.min(6, level) } : {}) });
          break;
        }
        case 'table:table':
          out.push({ text: tableText(c), html: '', unit: out.length + 1, group: 0, table: true });
          break;
        case 'text:list':
        case 'text:list-item':
        case 'text:list-header':
        case 'text:section':
        case 'text:index-body':
        case 'text:table-of-content':
          visit(c);
          break;
        default:
          break; // sequence declarations, forms, tracked changes: not body text
      }
    }
  };
  visit(body);
  return out;
}

/**
 * The text of a frame's embedded object (OpenOffice Impress keeps a slide's table as an embedded
 * spreadsheet or text: `draw:object xlink:href="./Object 1"`, its own `Object 1/content.xml`): its
 * tables a row a line, its paragraphs as they are. Read before the slides, from the package itself.
 */
async function embeddedObjects(zip: Awaited<ReturnType<typeof openZip>>, root: XmlNode): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of all(root, 'draw:object')) {
    const href = (o.getAttribute('xlink:href') ?? '').replace(/^\.\//, '').replace(/\/$/, '');
    if (!href || out.has(href) || href.includes('..')) continue;
    const xml = await zipText(zip, `${href}/content.xml`);
    if (!xml) continue;
    const doc = parseXml(xml, `${href}/content.xml`);
    const body = first(doc, 'office:body');
    if (!body) continue;
    const tables = all(body, 'table:table')
      .map(tableText)
      .filter((t) => t);
    const text =
      tables.length > 0
        ? tables.join('\n')
        : all(body, 'text:p')
            .map((p) => tidy(odfText(p)))
            .filter((t) => t)
            .join('\n');
    if (text) out.set(href, text);
  }
  return out;
}

function slideBlocks(pres: XmlNode, objects: ReadonlyMap<string, string>): { blocks: DocBlock[]; groups: BlockGroup[] } {
  const blocks: DocBlock[] = [];
  const groups: BlockGroup[] = [];
  elements(pres)
    .filter((p) => p.localName === 'draw:page')
    .forEach((page, i) => {
      const slide = i + 1;
      let title = '';
      const body: string[] = [];
      for (const frame of all(page, 'draw:frame')) {
        const inNotes = isInNotes(frame, page);
        if (inNotes) continue;
        // A table drawn on the slide is read a row a line, as a Word or PowerPoint table is.
        const tables = all(frame, 'table:table');
        const inTables = new Set(tables.flatMap((t) => all(t, 'text:p')));
        const object = first(frame, 'draw:object');
        const href = (object?.getAttribute('xlink:href') ?? '').replace(/^\.\//, '').replace(/\/$/, '');
        const text = [
          ...all(frame, 'text:p')
            .filter((p) => !inTables.has(p))
            .map((p) => tidy(odfText(p))),
          ...tables.map(tableText),
          objects.get(href) ?? '',
        ]
          .filter((t) => t)
          .join('\n');
        if (!text) continue;
        if (!title && frame.getAttribute('presentation:class') === 'title') title = text;
        else body.push(text);
      }
      const notesEl = first(page, 'presentation:notes');
      const notes = notesEl
        ? all(notesEl, 'text:p')
            .map((p) => tidy(odfText(p)))
            .filter((t) => t)
            .join('\n')
        : '';
      groups.push({ name: title || page.getAttribute('draw:name') || `Slide ${slide}` });
      if (title) blocks.push({ text: title, html: '', unit: slide, group: i, heading: 1 });
      for (const t of body) blocks.push({ text: t, html: '', unit: slide, group: i });
      if (notes) blocks.push({ text: `Notes: ${notes}`, html: '', unit: slide, group: i });
      if (!title && body.length === 0 && !notes) blocks.push({ text: '', html: '', unit: slide, group: i });
    });
  return { blocks, groups };
}

function isInNotes(n: XmlNode, page: XmlNode): boolean {
  let p = (n as unknown as { parentNode: XmlNode | null }).parentNode;
  while (p && p !== page) {
    if (p.localName === 'presentation:notes') return true;
    p = (p as unknown as { parentNode: XmlNode | null }).parentNode;
  }
  return false;
}

export async function readOdf(bytes: Uint8Array, limits: ZipLimits, format: 'odt' | 'odp'): Promise<BlockDoc> {
  const what = format === 'odt' ? 'an OpenDocument text' : 'an OpenDocument presentation';
  const zip = await openZip(bytes, limits, what);
  const manifest = (await zipText(zip, 'META-INF/manifest.xml')) ?? '';
  if (manifest.includes('manifest:encryption-data'))
    throw new KbError('ENCRYPTED', `${what} protected by a password: kb cannot read it without the password`);
  const xml = await zipText(zip, 'content.xml');
  if (!xml) throw new KbError('PARSE_FAILED', `not ${what} (no content.xml inside)`);
  const root = parseXml(xml, 'content.xml');
  const meta = await odfMeta(zip);
  const base = { title: meta.title, author: meta.author, date: meta.date, tags: meta.tags };
  if (format === 'odt') {
    const body = first(root, 'office:text');
    if (!body) throw new KbError('PARSE_FAILED', 'not a text document (content.xml has no office:text)');
    const blocks = textBlocks(body);
    return {
      ...base,
      title: base.title ?? blocks.find((b) => b.heading !== undefined && b.text)?.text ?? null,
      blocks,
      groups: [{ name: '' }],
      cite: 'para',
    };
  }
  const pres = first(root, 'office:presentation');
  if (!pres) throw new KbError('PARSE_FAILED', 'not a presentation (content.xml has no office:presentation)');
  const { blocks, groups } = slideBlocks(pres, await embeddedObjects(zip, pres));
  return { ...base, title: base.title ?? groups[0]?.name ?? null, blocks, groups, cite: 'slide' };
}
