// Which blocks of a structured document a citation names: the paragraphs of `#para=12-18`, the slide
// of `#slide=7`, the rows of `#sheet=Budget&row=12-40`, the passage a text fragment quotes, the blocks
// between an EPUB CFI's two ends, the message of `#msg=`. `kb get` prints them; the viewer marks them.
import { KbError } from '../../shared/errors.js';
import type { Anchor } from '../../shared/anchors.js';
import { anchorFragment } from '../../shared/citation.js';
import type { BlockDoc } from '../ingest/formats/blocks.js';

/** Indices into doc.blocks, inclusive, and the group they are in. */
export interface BlockRange {
  from: number;
  to: number;
  group: number;
}

const squash = (s: string): string => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** `/6/14[chap05]` → `/6/14`: assertions in brackets do not change where a step goes. */
const bare = (cfi: string): string => cfi.replace(/\[[^\]]*\]/g, '');

/** A CFI's chapter step and the start and end paths inside it (`/6/4!/4,/2,/6` → /6/4, /4/2, /4/6). */
export function splitCfi(cfi: string): { spine: string; start: string; end: string } | null {
  const [spine, inner = '/4'] = bare(cfi).split('!');
  if (!spine || !/^(\/\d+)+$/.test(spine)) return null;
  const parts = inner.replace(/:\d+(\[[^\]]*\])?$/, '').split(',');
  const strip = (p: string): string => p.replace(/:\d+$/, '');
  if (parts.length === 3) return { spine, start: strip(parts[0]! + parts[1]!), end: strip(parts[0]! + parts[2]!) };
  return { spine, start: strip(parts[0]!), end: strip(parts[0]!) };
}

/** The first block at or inside a CFI path, or containing it. */
function blockAt(doc: BlockDoc, group: number, path: string, last: boolean): number {
  const idx = doc.blocks.map((b, i) => [b, i] as const).filter(([b]) => b.group === group);
  const inside = idx.filter(([b]) => b.key === path || (b.key ?? '').startsWith(`${path}/`) || path.startsWith(`${b.key ?? '\u0000'}/`));
  if (inside.length > 0) return last ? inside[inside.length - 1]![1] : inside[0]![1];
  // A point between blocks (an element kb does not keep): the next block after it in the chapter.
  const steps = (p: string): number[] => p.split('/').slice(1).map(Number);
  const want = steps(path);
  const after = idx.find(([b]) => {
    const s = steps(b.key ?? '');
    for (let i = 0; i < Math.min(s.length, want.length); i++) if (s[i] !== want[i]) return s[i]! > want[i]!;
    return s.length >= want.length;
  });
  return after ? after[1] : (idx[idx.length - 1]?.[1] ?? -1);
}

function within(doc: BlockDoc, test: (unit: number, end: number, group: number) => boolean, ownCiteOnly = false): BlockRange | null {
  let from = -1;
  let to = -1;
  doc.blocks.forEach((b, i) => {
    if (ownCiteOnly && b.anchor) return;
    if (test(b.unit, b.end ?? b.unit, b.group)) {
      if (from < 0) from = i;
      to = i;
    }
  });
  return from < 0 ? null : { from, to, group: doc.blocks[from]!.group };
}

/** The blocks an anchor names; null when none match. Anchors of another format are an error. */
export function blockRange(doc: BlockDoc, anchor: Anchor): BlockRange | null {
  const wrong = (): never => {
    throw new KbError('INVALID_ARGUMENT', `#${anchorFragment(anchor)} does not fit this document: ${HINTS[doc.cite]}`);
  };
  switch (anchor.kind) {
    case 'para':
      if (doc.cite !== 'para') wrong();
      if (anchor.end < anchor.start) throw new KbError('INVALID_ARGUMENT', `#para=${anchor.start}-${anchor.end} ends before it starts`);
      return within(doc, (u) => u >= anchor.start && u <= anchor.end);
    case 'slide':
      if (doc.cite !== 'slide') wrong();
      return within(doc, (u) => u >= anchor.slide && u <= (anchor.slide_end ?? anchor.slide));
    case 'rows': {
      if (doc.cite !== 'rows') wrong();
      const g = anchor.sheet === undefined ? 0 : doc.groups.findIndex((x) => x.name === anchor.sheet);
      if (g < 0) throw new KbError('NOT_FOUND', `no sheet named ${anchor.sheet} (sheets: ${doc.groups.map((x) => x.name).join(', ')})`);
      // Row 1 is the header: a range from it starts at the first data row.
      return within(doc, (u, _e, grp) => grp === g && u >= anchor.start && u <= anchor.end);
    }
    case 'text': {
      if (doc.cite !== 'text' && doc.cite !== 'cfi' && doc.cite !== 'para') wrong();
      // Quoted words may run across blocks (a heading and the paragraph under it), as browsers match them.
      const starts: number[] = [];
      let joined = '';
      for (const b of doc.blocks) {
        starts.push(joined.length);
        joined += `${squash(b.text)} `;
      }
      const blockOf = (offset: number): number => {
        let i = 0;
        while (i + 1 < starts.length && starts[i + 1]! <= offset) i++;
        return i;
      };
      const start = squash(anchor.start);
      // The words before it (prefix-) say which occurrence is meant; the words after (-suffix), which end.
      const pre = anchor.prefix ? squash(anchor.prefix) : '';
      const withPrefix = pre ? joined.indexOf(`${pre} ${start}`) : -1;
      const at = withPrefix >= 0 ? withPrefix + pre.length + 1 : joined.indexOf(start);
      if (at < 0 || !start) return null;
      const from = blockOf(at);
      const end = squash(anchor.end ?? '');
      const post = anchor.suffix ? squash(anchor.suffix) : '';
      const withSuffix = end && post ? joined.indexOf(`${end} ${post}`, at + start.length) : -1;
      const endAt = withSuffix >= 0 ? withSuffix : end ? joined.indexOf(end, at + start.length) : -1;
      const to = endAt < 0 ? blockOf(at + start.length - 1) : blockOf(endAt + end.length - 1);
      return { from, to, group: doc.blocks[from]!.group };
    }
    case 'cfi': {
      if (doc.cite !== 'cfi') wrong();
      const c = splitCfi(anchor.cfi);
      if (!c) throw new KbError('INVALID_ARGUMENT', `#epubcfi(${anchor.cfi}) is not a CFI kb can follow: /6/N!/4/…`);
      const g = doc.groups.findIndex((x) => bare(x.key ?? '') === c.spine);
      if (g < 0) return null;
      const from = blockAt(doc, g, c.start, false);
      const to = blockAt(doc, g, c.end, true);
      return from < 0 ? null : { from, to: Math.max(from, to), group: g };
    }
    case 'msg': {
      if (doc.cite !== 'msg' && doc.cite !== 'lines') wrong();
      const g = doc.groups.findIndex((x, i) => x.key === anchor.id || String(i + 1) === anchor.id);
      return g < 0 ? null : within(doc, (_u, _e, grp) => grp === g);
    }
    case 'lines':
      if (doc.cite !== 'lines') wrong();
      return within(doc, (u, e) => e >= anchor.start && u <= anchor.end, true);
    default:
      return wrong();
  }
}

const HINTS: Record<BlockDoc['cite'], string> = {
  para: 'ask for paragraphs, #para=12-18',
  slide: 'ask for a slide, #slide=7',
  rows: 'ask for rows, #row=12-40 (a workbook: #sheet=Name&row=12-40)',
  text: 'ask for a text fragment, #:~:text=first%20words,last%20words',
  cfi: 'ask for an EPUB CFI, #epubcfi(/6/4!/4/2)',
  msg: 'ask for a message, #msg=<Message-ID>',
  lines: "ask for lines of the message's body, #L3-L9",
};

/** The text of a range, as `kb get` prints it: a table's header above its rows. */
export function rangeText(doc: BlockDoc, r: BlockRange | null): string {
  const blocks = r ? doc.blocks.slice(r.from, r.to + 1) : doc.blocks;
  const text = blocks
    .map((b) => b.text)
    .filter((t) => t.trim())
    .join('\n\n');
  const g = doc.groups[r?.group ?? 0];
  if (doc.cite === 'rows' && g?.header && g.header.length > 0) return `${g.header.join(' | ')}\n${blocks.map((b) => b.text).join('\n')}`;
  // A whole message (#msg=) is read with its headers.
  if ((doc.cite === 'msg' || (doc.cite === 'lines' && !r)) && g?.preamble) return `${g.preamble}\n\n${text}`.trim();
  return text;
}

/** What a whole document is cited as, when `kb get` is given none: every paragraph, slide or row of its first sheet; else its first passage. */
export function wholeAnchor(doc: BlockDoc, firstChunk: Anchor | undefined): Anchor | undefined {
  const units = doc.blocks.map((b) => b.unit);
  if (units.length === 0) return firstChunk;
  const lo = Math.min(...units);
  const hi = Math.max(...units);
  switch (doc.cite) {
    case 'para':
      return { kind: 'para', start: lo, end: hi };
    case 'slide':
      return hi > lo ? { kind: 'slide', slide: lo, slide_end: hi } : { kind: 'slide', slide: lo };
    case 'rows': {
      const first = doc.blocks.filter((b) => b.group === 0).map((b) => b.unit);
      const sheet = doc.groups[0]?.name;
      return first.length > 0 ? { kind: 'rows', start: 1, end: Math.max(...first), ...(sheet ? { sheet } : {}) } : firstChunk;
    }
    default:
      return firstChunk;
  }
}
