// A PDF page's text items → paragraphs in reading order. PDF text is positioned glyph runs in whatever
// order the producer emitted them, with no notion of lines, columns or paragraphs; this rebuilds them:
// runs on one baseline become line fragments (split at wide gaps, so columns never merge), the page
// is cut into horizontal bands where the same whitespace gutters run from top to bottom (a full-width
// title, then two or three columns, then a wide table), each band is read column by column — or row by
// row when it is a table — and vertical gaps and size changes end paragraphs. Pure functions of the
// item list, so they test without pdfjs; items arrive already turned upright (pdf-items.ts).

export interface TextItem {
  str: string;
  /** Left edge and baseline in the upright page, PDF units (y grows upwards). */
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

/** Joins the two halves of a word hyphenated across lines, until the document says whether the hyphen is real (pdf-hyphens.ts). */
export const SOFT_JOIN = '\u00ad';

/** A footnote or reference mark set small and raised above its line: dropped, as it splits the word it follows. */
const MARK = /^[\d*†‡§¶,]{1,3}$/u;

/** Items or fragments → rows on one baseline, top to bottom. */
export function rowsOf<T extends { y: number; height: number }>(xs: T[]): T[][] {
  const sorted = [...xs].sort((a, b) => b.y - a.y);
  const rows: T[][] = [];
  for (const it of sorted) {
    const row = rows.at(-1);
    // Compared with a member of its own size, when the row has one: a heading set large in one column
    // spans two lines of the column beside it, which are still two rows (joined, a reportlab page's
    // right column began "two smallerstreams"). Else with the row's tallest member: a raised footnote
    // mark still joins its line.
    const peers = row?.filter((m) => m.height >= 0.77 * it.height && m.height <= 1.3 * it.height) ?? [];
    const ref =
      peers.length > 0
        ? peers.reduce((a, b) => (Math.abs(b.y - it.y) < Math.abs(a.y - it.y) ? b : a))
        : row?.reduce((a, b) => (b.height > a.height ? b : a));
    if (row && ref && Math.abs(ref.y - it.y) <= 0.5 * Math.max(ref.height, it.height, 1)) row.push(it);
    else rows.push([it]);
  }
  return rows;
}

/** Items → fragments: same baseline (within half a font size), split where the gap is wider than ~0.9 em
 * (justified word gaps stay below that; a column gutter is wider). */
export function fragments(items: TextItem[]): Fragment[] {
  const usable = items.filter((i) => i.str.length > 0 && Number.isFinite(i.x) && Number.isFinite(i.y));
  const out: Fragment[] = [];
  for (const row of rowsOf(usable)) {
    const main = row.reduce((a, b) => (b.height * b.str.length > a.height * a.str.length ? b : a));
    const kept = row.filter((it) => !(MARK.test(it.str.trim()) && it.height < 0.85 * main.height && it.y - main.y > 0.2 * main.height));
    kept.sort((a, b) => a.x - b.x);
    let cur: Fragment | null = null;
    for (const it of kept) {
      const h = Math.max(it.height, 1);
      const blank = it.str.trim().length === 0;
      if (cur && it.x - cur.x1 <= 0.9 * Math.max(cur.height, h)) {
        const gap = it.x - cur.x1;
        // pdfjs often gives the space as its own item; otherwise a gap wider than ~0.15 em is a space.
        const needsSpace = !blank && !cur.text.endsWith(' ') && !it.str.startsWith(' ') && gap > 0.15 * h;
        cur.text += (needsSpace ? ' ' : '') + it.str;
        // pdf.js may stretch a space item over a gutter; only ink extends the fragment.
        if (!blank) cur.x1 = Math.max(cur.x1, it.x + it.width);
        cur.height = Math.max(cur.height, it.height);
      } else if (!blank) {
        if (cur) out.push(cur);
        cur = { text: it.str, x0: it.x, x1: it.x + it.width, y: main.y, height: it.height };
      }
    }
    if (cur) out.push(cur);
  }
  for (const f of out) f.text = f.text.replace(/\s+/g, ' ').trim();
  return out.filter((f) => f.text.length > 0);
}

type Interval = [number, number];

/** Where a row leaves the region [left, right] empty, as intervals at least `min` wide. */
function freeIn(row: Fragment[], left: number, right: number, min: number): Interval[] {
  const out: Interval[] = [];
  let at = left;
  for (const f of [...row].sort((a, b) => a.x0 - b.x0)) {
    if (f.x0 - at >= min) out.push([at, f.x0]);
    at = Math.max(at, f.x1);
  }
  if (right - at >= min) out.push([at, right]);
  return out;
}

function intersect(a: Interval[], b: Interval[], min: number): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    for (const y of b) {
      const lo = Math.max(x[0], y[0]);
      const hi = Math.min(x[1], y[1]);
      if (hi - lo >= min) out.push([lo, hi]);
    }
  }
  return out;
}

interface Band {
  rows: Fragment[][];
  free: Interval[];
  /** gutters(this), kept so each row is compared without recounting the band. */
  gutters: Interval[];
}

/** The free intervals with text on both sides in one row at least: the gutters between a band's columns. */
function gutters(band: Pick<Band, 'rows' | 'free'>): Interval[] {
  return band.free.filter((g) => support(band, g) >= 1);
}

function single(row: Fragment[], free: Interval[]): Band {
  const b = { rows: [row], free };
  return { ...b, gutters: gutters(b) };
}

/** Rows with text on both sides of a gutter before it is believed. */
const SUPPORT = 3;

function support(band: Pick<Band, 'rows'>, g: Interval): number {
  return band.rows.filter((r) => r.some((f) => f.x1 <= g[0] + 0.01) && r.some((f) => f.x0 >= g[1] - 0.01)).length;
}

/**
 * Rows top to bottom → bands: a band grows while the gutters it has keep running through each new
 * row; a row that crosses an established gutter (a full-width title, caption or table row) starts a
 * new band, and so does a row with a gap of its own below a band without gutters (columns begin under
 * full-width text).
 */
export function bands(frags: Fragment[]): Fragment[][][] {
  if (frags.length === 0) return [];
  const left = Math.min(...frags.map((f) => f.x0));
  const right = Math.max(...frags.map((f) => f.x1));
  const em = median(frags.map((f) => f.height)) || 10;
  // A gutter is at least ~0.8 em wide: fragments already split at 0.9 em, word gaps stay narrower.
  const min = 0.8 * em;
  const out: Band[] = [];
  for (const row of rowsOf(frags)) {
    const free = freeIn(row, left, right, min);
    const cur = out.at(-1);
    if (!cur) {
      out.push(single(row, free));
      continue;
    }
    const before = cur.gutters;
    const next = { rows: [...cur.rows, row], free: intersect(cur.free, free, min), gutters: [] };
    const after = gutters(next);
    // A gutter the row closes counts only if rows already had text on both sides of it: word gaps in
    // narrow justified columns can be wider than the gutter, but they do not line up row after row.
    const crossed = before.filter((g) => !after.some((a) => a[0] < g[1] && a[1] > g[0]));
    const established = crossed.some((g) => support(cur, g) >= SUPPORT);
    const ownGap = freeIn(row, Math.min(...row.map((f) => f.x0)), Math.max(...row.map((f) => f.x1)), min).length > 0;
    if (established || (before.length === 0 && ownGap)) {
      out.push(single(row, free));
    } else {
      cur.rows.push(row);
      cur.free = next.free;
      cur.gutters = after;
    }
  }
  return out.map((b) => {
    const gs = gutters(b)
      .filter((g) => support(b, g) >= SUPPORT)
      .sort((x, y) => x[0] - y[0]);
    const cols: Fragment[][][] = Array.from({ length: gs.length + 1 }, () => []);
    for (const row of b.rows) {
      const parts: Fragment[][] = Array.from({ length: gs.length + 1 }, () => []);
      for (const f of row) {
        const mid = (f.x0 + f.x1) / 2;
        parts[gs.filter((g) => g[1] <= mid).length]!.push(f);
      }
      parts.forEach((p, i) => {
        if (p.length > 0) cols[i]!.push(p);
      });
    }
    return cols.filter((c) => c.length > 0).map((c) => c.flat());
  });
}

function median(xs: number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * A band's columns hold prose when each is a wide, filled column: most lines reach across most of
 * its width. Otherwise the band is a table (or a form), read row by row so a row's cells stay together.
 */
function isProse(cols: Fragment[][]): boolean {
  if (cols.length < 2) return true;
  return cols.every((col) => {
    const x0 = Math.min(...col.map((f) => f.x0));
    const x1 = Math.max(...col.map((f) => f.x1));
    const em = median(col.map((f) => f.height)) || 10;
    const lines = rowsOf(col);
    const full = lines.filter((l) => Math.max(...l.map((f) => f.x1)) - Math.min(...l.map((f) => f.x0)) >= 0.7 * (x1 - x0)).length;
    return x1 - x0 >= 8 * em && lines.length >= 2 && full >= 0.5 * lines.length;
  });
}

/** Right-to-left scripts read their columns from the right. */
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/gu;
function rightToLeft(frags: Fragment[]): boolean {
  let rtl = 0;
  let all = 0;
  for (const f of frags) {
    rtl += f.text.match(RTL)?.length ?? 0;
    all += f.text.length;
  }
  return rtl > all * 0.3;
}

/** Fragments in reading order, as blocks: each column of each band, top to bottom; a table's rows one by one. */
export function readingOrder(frags: Fragment[]): Fragment[][] {
  const rtl = rightToLeft(frags);
  const blocks: Fragment[][] = [];
  for (const cols of bands(frags)) {
    const ordered = rtl ? [...cols].reverse() : cols;
    if (isProse(ordered)) {
      for (const c of ordered) blocks.push([...c].sort((a, b) => b.y - a.y || a.x0 - b.x0));
    } else {
      for (const row of rowsOf(cols.flat())) blocks.push(row.sort((a, b) => (rtl ? b.x0 - a.x0 : a.x0 - b.x0)));
    }
  }
  return blocks.filter((b) => b.length > 0);
}

/** Joins a line to the text before it: "adip-" + "iscing" → "adip\u00adiscing" (settled later); otherwise with a space. */
export function joinLine(prev: string, next: string): string {
  if (prev.length === 0) return next;
  if (/\p{L}-$/u.test(prev) && /^\p{Ll}/u.test(next)) return prev.slice(0, -1) + SOFT_JOIN + next;
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
