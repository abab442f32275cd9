// A PDF page's text items → paragraphs in reading order. PDF text is positioned glyph runs with no
// notion of lines, columns or paragraphs; this rebuilds them: runs on one baseline become line
// fragments (split at wide gaps, so two columns never merge), a vertical gutter splits a page into
// columns read one after the other, and vertical gaps and size changes end paragraphs. Words
// hyphenated across lines are joined. Pure functions of the item list, so they test without pdfjs.

export interface TextItem {
  str: string;
  /** Left edge and baseline, PDF units (y grows upwards). */
  x: number;
  y: number;
  width: number;
  /** Font size, roughly. */
  height: number;
}

/** A run of items on one baseline with no wide gap inside. */
export interface Fragment {
  text: string;
  x0: number;
  x1: number;
  y: number;
  height: number;
}

export interface Paragraph {
  text: string;
  /** Largest font size in it: headings stand out. */
  height: number;
  /** Top baseline, for header/footer detection. */
  top: number;
  bottom: number;
}

/** Items → fragments: same baseline (within half a font size), split where the gap is wider than ~0.9 em
 * (justified word gaps stay below that; a LaTeX column gutter is ~1 em). */
export function fragments(items: TextItem[]): Fragment[] {
  const usable = items.filter((i) => i.str.length > 0 && Number.isFinite(i.x) && Number.isFinite(i.y));
  usable.sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: TextItem[][] = [];
  for (const it of usable) {
    const row = rows.at(-1);
    const ref = row?.[0];
    if (row && ref && Math.abs(ref.y - it.y) <= 0.5 * Math.max(ref.height, it.height, 1)) row.push(it);
    else rows.push([it]);
  }
  const out: Fragment[] = [];
  for (const row of rows) {
    row.sort((a, b) => a.x - b.x);
    let cur: Fragment | null = null;
    for (const it of row) {
      const h = Math.max(it.height, 1);
      const blank = it.str.trim().length === 0;
      if (cur && it.x - cur.x1 <= 0.9 * Math.max(cur.height, h)) {
        const gap = it.x - cur.x1;
        // pdfjs often gives the space as its own item; otherwise a gap wider than ~0.15 em is a space.
        const needsSpace = !blank && !cur.text.endsWith(' ') && !it.str.startsWith(' ') && gap > 0.15 * h;
        cur.text += (needsSpace ? ' ' : '') + it.str;
        cur.x1 = Math.max(cur.x1, it.x + it.width);
        cur.height = Math.max(cur.height, it.height);
      } else if (!blank) {
        if (cur) out.push(cur);
        cur = { text: it.str, x0: it.x, x1: it.x + it.width, y: it.y, height: it.height };
      }
    }
    if (cur) out.push(cur);
  }
  for (const f of out) f.text = f.text.replace(/\s+/g, ' ').trim();
  return out.filter((f) => f.text.length > 0);
}

/**
 * The x of a vertical gutter between two columns, if the page has one: the widest band in the middle
 * half of the text's extent that few fragments cross, with a good share of the text on each side.
 */
export function findGutter(frags: Fragment[]): number | null {
  if (frags.length < 6) return null;
  const left = Math.min(...frags.map((f) => f.x0));
  const right = Math.max(...frags.map((f) => f.x1));
  const width = right - left;
  if (width <= 0) return null;
  const bins = 200;
  const cover = new Array<number>(bins).fill(0);
  for (const f of frags) {
    const a = Math.floor(((f.x0 - left) / width) * bins);
    const b = Math.min(bins - 1, Math.floor(((f.x1 - left) / width) * bins));
    for (let i = Math.max(0, a); i <= b; i++) cover[i]!++;
  }
  // A title block, a wide figure caption or a centred page number may cross it.
  const allowed = Math.max(2, Math.floor(frags.length * 0.15));
  let best: [number, number] | null = null;
  let start = -1;
  for (let i = Math.floor(bins * 0.25); i <= Math.ceil(bins * 0.75); i++) {
    const open = i < bins && cover[i]! <= allowed;
    if (open && start < 0) start = i;
    if ((!open || i === Math.ceil(bins * 0.75)) && start >= 0) {
      const end = open ? i : i - 1;
      if (!best || end - start > best[1] - best[0]) best = [start, end];
      start = -1;
    }
  }
  if (!best || ((best[1] - best[0] + 1) / bins) * width < 6) return null;
  const gx = left + (((best[0] + best[1] + 1) / 2) / bins) * width;
  const leftSide = frags.filter((f) => f.x1 <= gx).length;
  const rightSide = frags.filter((f) => f.x0 >= gx).length;
  // Both sides must hold a real share of the text, or this is a ragged single column (or a table).
  const enough = Math.max(3, frags.length * 0.2);
  return leftSide >= enough && rightSide >= enough ? gx : null;
}

/** Fragments in reading order: top to bottom, and within a two-column stretch, left column first. */
export function readingOrder(frags: Fragment[]): Fragment[][] {
  const sorted = [...frags].sort((a, b) => b.y - a.y || a.x0 - b.x0);
  const gx = findGutter(sorted);
  if (gx === null) return [sorted];
  const blocks: Fragment[][] = [];
  let run: Fragment[] = [];
  const flush = (): void => {
    if (run.length === 0) return;
    blocks.push(run.filter((f) => f.x1 <= gx));
    blocks.push(run.filter((f) => f.x1 > gx));
    run = [];
  };
  for (const f of sorted) {
    if (f.x0 < gx && f.x1 > gx) {
      flush();
      blocks.push([f]); // spans both columns: a title, a figure caption, a full-width table row
    } else run.push(f);
  }
  flush();
  return blocks.filter((b) => b.length > 0);
}

/** Joins a line to the text before it: "adip-" + "iscing" → "adipiscing"; otherwise with a space. */
export function joinLine(prev: string, next: string): string {
  if (prev.length === 0) return next;
  if (/\p{L}-$/u.test(prev) && /^\p{Ll}/u.test(next)) return prev.slice(0, -1) + next;
  return `${prev} ${next}`;
}

/** Fragments of one column → paragraphs: a wide vertical gap or a change of font size starts a new one. */
export function paragraphs(blocks: Fragment[][]): Paragraph[] {
  const out: Paragraph[] = [];
  for (const block of blocks) {
    const gaps: number[] = [];
    for (let i = 1; i < block.length; i++) {
      const g = block[i - 1]!.y - block[i]!.y;
      if (g > 0) gaps.push(g);
    }
    gaps.sort((a, b) => a - b);
    const usual = gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)]! : 0;
    let cur: Paragraph | null = null;
    let prev: Fragment | null = null;
    for (const f of block) {
      const gap = prev ? prev.y - f.y : 0;
      const sizeChange = prev !== null && Math.abs(f.height - prev.height) > 0.15 * Math.max(f.height, prev.height, 1);
      const wide = prev !== null && (gap > 1.45 * Math.max(usual, prev.height) || gap < -0.5 * prev.height);
      if (!cur || sizeChange || wide) {
        if (cur) out.push(cur);
        cur = { text: f.text, height: f.height, top: f.y, bottom: f.y };
      } else {
        cur.text = joinLine(cur.text, f.text);
        cur.height = Math.max(cur.height, f.height);
        cur.bottom = Math.min(cur.bottom, f.y);
        cur.top = Math.max(cur.top, f.y);
      }
      prev = f;
    }
    if (cur) out.push(cur);
  }
  return out;
}

/** Page numbers and running headers/footers are compared with digits blanked out. */
export function marginSignature(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** A line that is only a page number ("7", "- 7 -", "Page 7 of 12", "vii"). */
export function isPageNumber(text: string): boolean {
  return /^(page\s*)?[-–—(]?\s*(\d{1,5}|[ivxlcdm]{1,7})\s*[-–—)]?(\s*(of|\/)\s*\d{1,5})?$/i.test(text.trim());
}
