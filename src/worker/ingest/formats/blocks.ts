// The structured formats (Word, ODF, slides, web pages, e-books, tables, mail) all come down to a list
// of blocks: a paragraph, a heading, a list item, a table, a slide, a row, a message. Each block knows
// its text (for the index), its markup (for the viewer) and where it is (for the citation). One
// chunker cuts every such document, and the viewer and `kb get` read the same blocks back.
import type { Anchor } from '../../../shared/anchors.js';
import { type Block as PackBlock, packBlocks } from '../chunk/pack.js';
import type { ChunkingOptions, ParsedChunk } from '../types.js';

export interface DocBlock {
  /** Plain text, for the index and `kb get`. */
  text: string;
  /** Sanitised markup for the viewer (no script, no handlers, no remote loads); '' to show the text. */
  html: string;
  /** A heading's level (1–6); undefined for body blocks. */
  heading?: number;
  /**
   * The citation unit: the paragraph number (docx, odt), the slide, the row (RFC 7111: the header is
   * row 1), the message's ordinal; for web pages and e-books the block's ordinal.
   */
  unit: number;
  /** This block's citation when not the format's own (an attachment cites its message). */
  anchor?: Anchor;
  /** A table whose text is rows of "a | b | c" lines: shown as a table. */
  table?: boolean;
  /** The last unit the block covers, when it is more than one (a paragraph's last line). */
  end?: number;
  /** Chunks never span two groups: a slide, a sheet, a chapter, a message. */
  group: number;
  /** An EPUB block's CFI path inside its chapter (`/4/2/10`), a message's id. */
  key?: string;
}

/** A group's name and what the viewer needs to show it on its own (a chapter's file, a sheet's header). */
export interface BlockGroup {
  /** Sheet name, chapter title, slide title, message subject. */
  name: string;
  /** EPUB: the spine step (`/6/14[chap05]`); mail: the Message-ID or ordinal. */
  key?: string;
  /** EPUB: the chapter's number as a reader counts them (front matter has none). */
  chapter?: number;
  /** Tables: the header row (row 1), repeated at the top of every chunk. */
  header?: string[];
  /** Mail: From, To, Date, Subject, shown above the message. */
  headers?: [string, string][];
  /** Text repeated at the top of every chunk of the group (a message's headers); alone when the group has no text. */
  preamble?: string;
}

export interface BlockDoc {
  title: string | null;
  author: string | null;
  /** ISO 8601 where the format records it. */
  date: string | null;
  tags: string[];
  blocks: DocBlock[];
  groups: BlockGroup[];
  /** Which citation the format's chunks carry. */
  cite: 'para' | 'slide' | 'rows' | 'text' | 'cfi' | 'msg' | 'lines';
}

const squash = (t: string): string => t.replace(/\s+/g, ' ').trim();

/**
 * First and last words of a passage, as a W3C text fragment quotes them. Browsers match a fragment on
 * whole words, so it begins and ends on them. Where its first words occur earlier in the document (or
 * its last words again inside it), the words just before (after) it go along as prefix- (-suffix), so
 * the fragment finds this passage and no other. `at`: where the passage starts in `whole`, squashed.
 */
export function textFragment(
  text: string,
  words = 6,
  whole?: { text: string; lower: string; at: number },
  /**
   * The passage's first and last blocks (a heading, a paragraph) when it spans several: a browser
   * matches each of a fragment's terms inside one block, so "Saffron Risotto Toast the rice" across
   * an <h1> and a <p> finds nothing. The start is quoted from the first block, the end from the last.
   */
  blocks?: { first: string; last: string },
): Extract<Anchor, { kind: 'text' }> {
  const split = (t: string): string[] =>
    squash(t)
      .split(' ')
      .filter((x) => x.length > 0);
  const w = split(text);
  const anchor: Extract<Anchor, { kind: 'text' }> = blocks
    ? { kind: 'text', start: split(blocks.first).slice(0, words).join(' '), end: split(blocks.last).slice(-words).join(' ') }
    : w.length <= words * 2
      ? { kind: 'text', start: w.join(' ') }
      : { kind: 'text', start: w.slice(0, words).join(' '), end: w.slice(-words).join(' ') };
  if (!whole) return anchor;
  const doc = whole.lower;
  const start = anchor.start.toLowerCase();
  if (doc.indexOf(start) < whole.at && whole.at > 0) {
    const before = whole.text.slice(0, whole.at).trim().split(' ').slice(-3).join(' ');
    if (before) anchor.prefix = before;
  }
  if (anchor.end) {
    const end = anchor.end.toLowerCase();
    const stop = whole.at + squash(text).length;
    const first = doc.indexOf(end, whole.at + start.length);
    if (first >= 0 && first + end.length < stop) {
      const after = whole.text.slice(stop).trim().split(' ').slice(0, 3).join(' ');
      if (after) anchor.suffix = after;
    }
  }
  return anchor;
}

/** The document's text squashed to single spaces, and where each block starts in it. */
const wholeText = new WeakMap<BlockDoc, { text: string; lower: string; starts: Map<DocBlock, number> }>();
function wholeOf(doc: BlockDoc): { text: string; lower: string; starts: Map<DocBlock, number> } {
  let w = wholeText.get(doc);
  if (!w) {
    const starts = new Map<DocBlock, number>();
    let text = '';
    for (const b of doc.blocks) {
      const t = squash(b.text);
      if (!t) continue;
      starts.set(b, text.length);
      text += `${t} `;
    }
    // Lowercased once per document, not once per chunk (a big page has thousands of chunks).
    w = { text, lower: text.toLowerCase(), starts };
    wholeText.set(doc, w);
  }
  return w;
}

/** Steps shared by two CFI paths, then the rest of each: `/4/2,/10,/18` (EPUB CFI 3.1, "Ranges"). */
export function cfiRange(spine: string, a: string, b: string): string {
  if (a === b) return `${spine}!${a}`;
  const sa = a.split('/').slice(1);
  const sb = b.split('/').slice(1);
  let i = 0;
  while (i < sa.length - 1 && i < sb.length - 1 && sa[i] === sb[i]) i++;
  const common = sa
    .slice(0, i)
    .map((s) => `/${s}`)
    .join('');
  return `${spine}!${common},/${sa.slice(i).join('/')},/${sb.slice(i).join('/')}`;
}

/** The anchor of a run of blocks, in the document's own citation kind. */
function anchorOf(doc: BlockDoc, first: DocBlock, last: DocBlock, text: string, offset = 0): Anchor {
  if (first.anchor) return first.anchor;
  switch (doc.cite) {
    case 'para':
      return { kind: 'para', start: first.unit, end: last.unit };
    case 'slide':
      return { kind: 'slide', slide: first.unit };
    case 'rows': {
      const sheet = doc.groups[first.group]?.name;
      return { kind: 'rows', start: first.unit, end: last.unit, ...(sheet ? { sheet } : {}) };
    }
    case 'text': {
      const whole = wholeOf(doc);
      const base = whole.starts.get(first);
      const spans = first !== last && squash(first.text) !== '' && squash(last.text) !== '';
      return textFragment(
        text,
        6,
        base === undefined ? undefined : { text: whole.text, lower: whole.lower, at: base + offset },
        spans ? { first: squash(first.text).slice(offset), last: squash(last.text) } : undefined,
      );
    }
    case 'cfi': {
      const chapter = doc.groups[first.group]?.chapter;
      return {
        kind: 'cfi',
        cfi: cfiRange(doc.groups[first.group]?.key ?? '/6/2', first.key ?? '/4', last.key ?? '/4'),
        ...(chapter ? { chapter } : {}),
      };
    }
    case 'msg':
      return { kind: 'msg', id: doc.groups[first.group]?.key ?? String(first.unit) };
    case 'lines':
      return { kind: 'lines', start: first.unit, end: last.end ?? last.unit };
  }
}

/**
 * Chunks of a block document. Sections start at headings (their path is the chunk's heading); a group
 * (slide, sheet, chapter, message) is never crossed. Tables repeat their header row in every chunk.
 */
export function chunkBlocks(doc: BlockDoc, opts: ChunkingOptions): ParsedChunk[] {
  const out: ParsedChunk[] = [];
  const groupStarts: number[] = [];
  doc.blocks.forEach((b, i) => {
    if (i === 0 || doc.blocks[i - 1]!.group !== b.group) groupStarts.push(i);
  });
  for (let g = 0; g < groupStarts.length; g++) {
    const from = groupStarts[g]!;
    const to = g + 1 < groupStarts.length ? groupStarts[g + 1]! : doc.blocks.length;
    chunkGroup(doc, doc.blocks.slice(from, to), opts, out);
  }
  return out;
}

function chunkGroup(doc: BlockDoc, blocks: DocBlock[], opts: ChunkingOptions, out: ParsedChunk[]): void {
  const group = doc.groups[blocks[0]?.group ?? -1];
  const header = group?.header ? group.header.join(' | ') : (group?.preamble ?? null);
  // A message with nothing in its body is still found by its sender and subject.
  if (group?.preamble && !blocks.some((b) => b.text.trim())) {
    out.push({ text: group.preamble, heading: group.name, anchor: { kind: 'msg', id: group.key ?? String(blocks[0]!.group + 1) } });
    return;
  }
  // Sections: a heading starts one; the path of headings above it names it.
  const sections: { path: string[]; blocks: DocBlock[] }[] = [
    { path: group && doc.cite !== 'rows' ? [group.name].filter((n) => n) : [], blocks: [] },
  ];
  const stack: { level: number; text: string }[] = [];
  const base = sections[0]!.path;
  for (const b of blocks) {
    if (b.heading !== undefined && doc.cite !== 'slide' && doc.cite !== 'rows') {
      while (stack.length > 0 && stack[stack.length - 1]!.level >= b.heading) stack.pop();
      stack.push({ level: b.heading, text: b.text.trim().slice(0, 200) });
      // A chapter whose first heading is its own title does not say it twice.
      const path = [...base, ...stack.map((s) => s.text)].filter((t, i, a) => t && t !== a[i - 1]);
      sections.push({ path, blocks: [b] });
    } else sections[sections.length - 1]!.blocks.push(b);
  }
  // Small sections join the next (the chunk keeps the path of where it starts), as in Markdown.
  let pending: { path: string[]; blocks: DocBlock[] } | null = null;
  const flush = (s: { path: string[]; blocks: DocBlock[] }): void => pack(doc, s.blocks, s.path.join(' > '), header, opts, out);
  for (const s of sections.filter((x) => x.blocks.length > 0)) {
    if (pending) {
      const chars = pending.blocks.reduce((n, b) => n + b.text.length + 2, 0);
      // Never across a change of citation (a message's body and its attachments cite differently).
      const sameCite = (pending.blocks[0]!.anchor === undefined) === (s.blocks[0]!.anchor === undefined);
      if (chars < opts.min_chars && sameCite && (pending.path[0] ?? '') === (s.path[0] ?? '')) {
        pending.blocks.push(...s.blocks);
        continue;
      }
      flush(pending);
    }
    pending = { path: s.path, blocks: [...s.blocks] };
  }
  if (pending) flush(pending);
}

function pack(doc: BlockDoc, blocks: DocBlock[], heading: string, header: string | null, opts: ChunkingOptions, out: ParsedChunk[]): void {
  const nonEmpty = blocks.filter((b) => b.text.trim().length > 0);
  if (nonEmpty.length === 0) return;
  const room = header ? Math.max(opts.min_chars, opts.max_chars - header.length - 1) : opts.max_chars;
  const units: PackBlock[] = nonEmpty.map((b, i) => ({ startLine: i + 1, endLine: i + 1, chars: b.text.length + 2, atomic: false }));
  const pieces =
    doc.cite === 'slide'
      ? [{ startLine: 1, endLine: nonEmpty.length }]
      : packBlocks(units, (l) => nonEmpty[l - 1]!.text.length, { ...opts, max_chars: room });
  for (const p of pieces) {
    const run = nonEmpty.slice(p.startLine - 1, p.endLine);
    const body = run.map((b) => b.text.trim()).join('\n\n');
    // One block longer than the chunk limit (a huge paragraph, a slide full of text) is cut into
    // windows that all cite it: the citation unit is the block. Cut between words, never inside one
    // (a text fragment quoting half a word finds nothing in a browser).
    for (let i = 0; i < body.length;) {
      let end = Math.min(body.length, i + room * 2);
      if (end < body.length) {
        const space = body.slice(i + room, end).search(/\s\S*$/);
        if (space >= 0) end = i + room + space;
      }
      const part = body.slice(i, end).trim();
      const text = header ? `${header}\n${part}` : part;
      // Where the window starts in the block's squashed text (for a text fragment's prefix).
      const offset = squash(body.slice(0, i)).length + (i > 0 ? 1 : 0);
      if (part) out.push({ text, heading, anchor: anchorOf(doc, run[0]!, run[run.length - 1]!, part, offset) });
      i = end;
      while (i < body.length && /\s/.test(body[i]!)) i++;
    }
  }
}
