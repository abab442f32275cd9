// PowerPoint (.pptx, .pptm): slides in the order the presentation lists them, each one chunk of its
// title, its text (shapes and tables, in the order they are drawn) and its speaker notes (`#slide=7`).
// Macros are a binary part nothing here reads.
import { posix } from 'node:path';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, BlockGroup, DocBlock } from './blocks.js';
import { ooxmlMeta } from './office-meta.js';
import { all, descendants, first, parseXml, type XmlNode } from './xml.js';
import { openZip, zipText, type ZipLimits } from './zip.js';
import type JSZip from 'jszip';

/** Relationship id → part path, from a part's .rels file. */
async function relationships(zip: JSZip, part: string): Promise<Map<string, { target: string; type: string }>> {
  const rels = `${posix.dirname(part)}/_rels/${posix.basename(part)}.rels`;
  const xml = await zipText(zip, rels);
  const out = new Map<string, { target: string; type: string }>();
  if (!xml) return out;
  for (const r of all(parseXml(xml, rels), 'Relationship')) {
    const id = r.getAttribute('Id');
    const target = r.getAttribute('Target');
    if (!id || !target || r.getAttribute('TargetMode') === 'External') continue;
    out.set(id, {
      target: target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join(posix.dirname(part), target)),
      type: r.getAttribute('Type') ?? '',
    });
  }
  return out;
}

/** A DrawingML paragraph's text: runs, fields, line breaks. */
function paragraphText(p: XmlNode): string {
  let s = '';
  const visit = (n: XmlNode): void => {
    for (const c of Array.from(n.childNodes)) {
      if (c.nodeType !== 1) continue;
      // A soft return typed into a run is a vertical tab (_x000B_ where XML cannot hold it): a line break.
      if (c.localName === 'a:t') s += (c.textContent ?? '').replace(/\u000b|_x000B_/g, '\n');
      else if (c.localName === 'a:br') s += '\n';
      else visit(c);
    }
  };
  visit(p);
  return s
    .replace(/[ \t\f\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
}

const placeholder = (sp: XmlNode): string | null => first(sp, 'p:ph')?.getAttribute('type') ?? (first(sp, 'p:ph') ? 'body' : null);

function shapeText(sp: XmlNode): string {
  return all(sp, 'a:p')
    .map(paragraphText)
    .filter((t) => t)
    .join('\n');
}

export async function readPptx(bytes: Uint8Array, limits: ZipLimits): Promise<BlockDoc> {
  const zip = await openZip(bytes, limits, 'a PowerPoint presentation');
  const presXml = await zipText(zip, 'ppt/presentation.xml');
  if (!presXml) throw new KbError('PARSE_FAILED', 'not a PowerPoint presentation (no ppt/presentation.xml inside)');
  const rels = await relationships(zip, 'ppt/presentation.xml');
  const order = all(parseXml(presXml, 'ppt/presentation.xml'), 'p:sldId')
    .map((s) => rels.get(s.getAttribute('r:id') ?? '')?.target)
    .filter((t): t is string => !!t);
  const blocks: DocBlock[] = [];
  const groups: BlockGroup[] = [];
  for (const [i, part] of order.entries()) {
    const slide = i + 1;
    const xml = await zipText(zip, part);
    if (!xml) continue;
    const root = parseXml(xml, part);
    let title = '';
    const body: { text: string; table: boolean }[] = [];
    const tree = first(root, 'p:spTree') ?? root;
    // Shapes, and tables inside graphic frames, in drawing order.
    for (const shape of descendants(tree).filter((n) => n.localName === 'p:sp' || n.localName === 'a:tbl')) {
      const ph = shape.localName === 'p:sp' ? placeholder(shape) : null;
      if (ph === 'sldNum' || ph === 'dt' || ph === 'ftr') continue;
      const text =
        shape.localName === 'a:tbl'
          ? all(shape, 'a:tr')
              .map((r) =>
                all(r, 'a:tc')
                  .map((c) => shapeText(c).replace(/\n/g, ' '))
                  .join(' | '),
              )
              .join('\n')
          : isInTable(shape)
            ? ''
            : shapeText(shape);
      if (!text) continue;
      if (!title && (ph === 'title' || ph === 'ctrTitle')) title = text.replace(/\n/g, ' ');
      else body.push({ text, table: shape.localName === 'a:tbl' });
    }
    const notesPart = [...(await relationships(zip, part)).values()].find((r) => r.type.endsWith('/notesSlide'))?.target;
    const notesXml = notesPart ? await zipText(zip, notesPart) : null;
    const notes = notesXml
      ? all(parseXml(notesXml, notesPart!), 'p:sp')
          .filter((sp) => placeholder(sp) === 'body')
          .map(shapeText)
          .filter((t) => t)
          .join('\n')
      : '';
    groups.push({ name: title || `Slide ${slide}` });
    if (title) blocks.push({ text: title, html: '', unit: slide, group: i, heading: 1 });
    for (const b of body) blocks.push({ text: b.text, html: '', unit: slide, group: i, ...(b.table ? { table: true } : {}) });
    if (notes) blocks.push({ text: `Notes: ${notes}`, html: '', unit: slide, group: i });
    if (!title && body.length === 0 && !notes) blocks.push({ text: '', html: '', unit: slide, group: i });
  }
  const meta = await ooxmlMeta(zip);
  return {
    title: meta.title ?? groups.find((g) => !g.name.startsWith('Slide '))?.name ?? null,
    author: meta.author,
    date: meta.date,
    tags: meta.tags,
    blocks,
    groups,
    cite: 'slide',
  };
}

function isInTable(n: XmlNode): boolean {
  let p = (n as unknown as { parentNode: XmlNode | null }).parentNode;
  while (p) {
    if (p.localName === 'a:tbl') return true;
    p = (p as unknown as { parentNode: XmlNode | null }).parentNode;
  }
  return false;
}
