// Greedy packing of line-addressed blocks into chunks: the one place that decides chunk sizes for
// Markdown sections, plain-text paragraphs and code glue, so every format cuts the same way.
import type { Anchor } from '../../../shared/anchors.js';
import type { ChunkingOptions } from '../types.js';

export interface Block {
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  chars: number;
  /** Never split (fenced code, tables). */
  atomic: boolean;
}

export interface Piece {
  startLine: number;
  endLine: number;
}

/** Splits one oversized non-atomic block by lines; a single line longer than max stays whole (a line is the citation unit). */
function splitBlock(block: Block, lineLengths: (line: number) => number, max: number): Block[] {
  if (block.atomic || block.chars <= max || block.startLine === block.endLine) return [block];
  const out: Block[] = [];
  let start = block.startLine;
  let chars = 0;
  for (let l = block.startLine; l <= block.endLine; l++) {
    const len = lineLengths(l) + 1;
    if (chars > 0 && chars + len > max) {
      out.push({ startLine: start, endLine: l - 1, chars, atomic: false });
      start = l;
      chars = 0;
    }
    chars += len;
  }
  out.push({ startLine: start, endLine: block.endLine, chars, atomic: false });
  return out;
}

/**
 * Packs consecutive blocks into pieces of about target_chars, never above max_chars unless one
 * atomic block is bigger on its own. When a run is cut, the next piece repeats trailing blocks of the
 * previous one up to overlap_chars, so a passage that straddles the cut is still found whole.
 */
export function packBlocks(blocks: Block[], lineLengths: (line: number) => number, opts: ChunkingOptions): Piece[] {
  const units = blocks.flatMap((b) => splitBlock(b, lineLengths, opts.max_chars));
  const pieces: Piece[] = [];
  let cur: Block[] = [];
  let curChars = 0;
  const flush = (): void => {
    if (cur.length === 0) return;
    pieces.push({ startLine: cur[0]!.startLine, endLine: cur[cur.length - 1]!.endLine });
  };
  for (const u of units) {
    if (cur.length > 0 && curChars + u.chars > opts.target_chars && curChars >= opts.min_chars) {
      flush();
      // Overlap: carry trailing small blocks forward; failing that, the last lines of the last block.
      const carried: Block[] = [];
      let carriedChars = 0;
      for (let i = cur.length - 1; i >= 1; i--) {
        const b = cur[i]!;
        if (carriedChars + b.chars > opts.overlap_chars || b.atomic) break;
        carried.unshift(b);
        carriedChars += b.chars;
      }
      const last = cur[cur.length - 1]!;
      if (carried.length === 0 && !last.atomic && last.endLine > last.startLine) {
        let start = last.endLine + 1;
        while (start - 1 > last.startLine && carriedChars + lineLengths(start - 1) + 1 <= opts.overlap_chars) {
          start--;
          carriedChars += lineLengths(start) + 1;
        }
        if (start <= last.endLine) carried.push({ startLine: start, endLine: last.endLine, chars: carriedChars, atomic: false });
      }
      if (carriedChars + u.chars > opts.max_chars) {
        carried.length = 0;
        carriedChars = 0;
      }
      cur = carried;
      curChars = carriedChars;
    } else if (cur.length > 0 && curChars + u.chars > opts.max_chars) {
      flush();
      cur = [];
      curChars = 0;
    }
    cur.push(u);
    curChars += u.chars;
  }
  flush();
  return pieces;
}

/** Line index over a source text: exact 1-based line slices for chunk text. */
export class Lines {
  readonly lines: string[];
  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
  }
  get count(): number {
    return this.lines.length;
  }
  length(line: number): number {
    return this.lines[line - 1]?.length ?? 0;
  }
  slice(start: number, end: number): string {
    return this.lines.slice(start - 1, end).join('\n');
  }
  isBlank(line: number): boolean {
    return (this.lines[line - 1] ?? '').trim() === '';
  }
  /** Narrows a range to exclude leading and trailing blank lines; null when all blank. */
  trim(start: number, end: number): Piece | null {
    let s = start;
    let e = end;
    while (s <= e && this.isBlank(s)) s++;
    while (e >= s && this.isBlank(e)) e--;
    return s <= e ? { startLine: s, endLine: e } : null;
  }
  /** Blank-line separated paragraphs within a range. */
  paragraphs(start: number, end: number): Block[] {
    const out: Block[] = [];
    let s = -1;
    let chars = 0;
    for (let l = start; l <= end; l++) {
      if (this.isBlank(l)) {
        if (s >= 0) out.push({ startLine: s, endLine: l - 1, chars, atomic: false });
        s = -1;
        chars = 0;
      } else {
        if (s < 0) s = l;
        chars += this.length(l) + 1;
      }
    }
    if (s >= 0) out.push({ startLine: s, endLine: end, chars, atomic: false });
    return out;
  }
}

export interface PieceText {
  text: string;
  startLine: number;
  endLine: number;
  /** A window of one very long line: its first and last characters there, 1-based. */
  colStart?: number;
  colEnd?: number;
}

/** The citation of a piece: its lines, and inside a very long line its characters. */
export function pieceAnchor(t: PieceText): Extract<Anchor, { kind: 'lines' }> {
  return {
    kind: 'lines',
    start: t.startLine,
    end: t.endLine,
    ...(t.colStart !== undefined && t.colEnd !== undefined ? { col_start: t.colStart, col_end: t.colEnd } : {}),
  };
}

/**
 * The text of a piece. A single line far longer than max_chars (minified code, a one-line dump) is
 * cut into windows that cite that line and their characters in it, so no chunk grows without bound
 * and each window's citation opens at its own words.
 */
export function pieceTexts(lines: Lines, p: Piece, opts: ChunkingOptions): PieceText[] {
  const text = lines.slice(p.startLine, p.endLine);
  if (p.startLine !== p.endLine || text.length <= opts.max_chars * 2) {
    return [{ text, startLine: p.startLine, endLine: p.endLine }];
  }
  const out: PieceText[] = [];
  for (let i = 0; i < text.length; i += opts.max_chars) {
    const window = text.slice(i, i + opts.max_chars);
    out.push({ text: window, startLine: p.startLine, endLine: p.endLine, colStart: i + 1, colEnd: i + window.length });
  }
  return out;
}
