// Which spans of pdf.js's text layer to mark for a cited passage. Pure, so it tests without a browser.

const norm = (s: string): string => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/** A text-layer span: its text and where it sits on the page. */
export interface SpanBox {
  text: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** The span's text belongs to the passage: inside it, or overlapping its first or last words. */
function inPassage(t: string, p: string): boolean {
  if (p.includes(t)) return true;
  const edge = Math.min(12, t.length, p.length);
  for (let k = t.length; k >= edge; k--) if (p.startsWith(t.slice(t.length - k)) || p.endsWith(t.slice(0, k))) return true;
  return false;
}

/** Where a span's text sits in the passage: its first occurrence, or the edge it overlaps. */
function placeIn(t: string, p: string): [number, number] {
  const at = p.indexOf(t);
  if (at >= 0) return [at, at + t.length];
  for (let k = t.length; k >= 1; k--) {
    if (p.startsWith(t.slice(t.length - k))) return [0, k];
    if (p.endsWith(t.slice(0, k))) return [p.length - k, p.length];
  }
  return [0, 0];
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * Sure spans (a dozen letters or more that belong to the passage) grouped into blocks of text that
 * touch: the same column, lines at most two apart. A passage is one block, or a few when it runs on
 * into the next column or onto a line under a figure.
 */
function blocksOf(sure: (SpanBox & { from: number; to: number })[], line: number): (Box & { covers: [number, number][] })[] {
  const parent = sure.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  for (let i = 0; i < sure.length; i++) {
    for (let j = i + 1; j < sure.length; j++) {
      const a = sure[i]!;
      const b = sure[j]!;
      const gapY = Math.max(a.top, b.top) - Math.min(a.bottom, b.bottom);
      const gapX = Math.max(a.left, b.left) - Math.min(a.right, b.right);
      if (gapY <= line * 2 && gapX <= line * 0.5) parent[find(i)] = find(j);
    }
  }
  const blocks = new Map<number, Box & { covers: [number, number][] }>();
  sure.forEach((s, i) => {
    const r = find(i);
    const b = blocks.get(r);
    if (!b) blocks.set(r, { left: s.left, right: s.right, top: s.top, bottom: s.bottom, covers: [[s.from, s.to]] });
    else {
      b.left = Math.min(b.left, s.left);
      b.right = Math.max(b.right, s.right);
      b.top = Math.min(b.top, s.top);
      b.bottom = Math.max(b.bottom, s.bottom);
      b.covers.push([s.from, s.to]);
    }
  });
  return [...blocks.values()];
}

/** How many of the passage's characters the intervals cover that `taken` does not. */
function adds(covers: [number, number][], taken: Uint8Array): number {
  const mine = new Uint8Array(taken.length);
  for (const [a, b] of covers) mine.fill(1, a, b);
  let n = 0;
  for (let i = 0; i < mine.length; i++) if (mine[i] && !taken[i]) n++;
  return n;
}

/**
 * Which text-layer spans hold the passage. A producer may emit a page's lines in any order (across
 * columns, say), and a page repeats phrases ("Fax:", "For more information"), so neither the order of
 * the spans nor their text alone says where the passage is. Its distinctive spans (a dozen letters or
 * more) are grouped into blocks of touching lines; the block that covers most of the passage is its
 * place, and another block joins only for what of the passage it adds (the passage running on into the
 * next column) — a phrase repeated elsewhere adds nothing. Spans are marked inside those blocks only.
 */
export function spansToMark(spans: SpanBox[], passage: string): number[] {
  const p = norm(passage);
  if (p.length === 0) return [];
  const texts = spans.map((s) => norm(s.text));
  const belongs = texts.map((t) => t.length > 0 && inPassage(t, p));
  // A span that shares only an edge with the passage (a line the passage starts or ends inside) may
  // as well be a running header ending in the words the passage starts with ("… Annual Report" over
  // "Annual report of the board"): it never places the passage, and counts only right beside it.
  const edgeOnly = texts.map((t, i) => belongs[i]! && !p.includes(t));
  const sure = spans.flatMap((s, i) => {
    if (!belongs[i] || edgeOnly[i] || texts[i]!.length < 12) return [];
    const [from, to] = placeIn(texts[i]!, p);
    return [{ ...s, from, to }];
  });
  if (sure.length === 0) {
    // Only short spans: the passage's start and end in the page's text, and what belongs between them.
    const offsets: number[] = [];
    let page = '';
    for (const t of texts) {
      offsets.push(page.length);
      page += t;
    }
    const probe = Math.min(40, p.length);
    const start = page.indexOf(p.slice(0, probe));
    if (start < 0) return [];
    const endHit = page.indexOf(p.slice(-probe), start);
    const end = endHit >= 0 ? endHit + probe : start + p.length;
    return offsets.flatMap((o, i) => (belongs[i] && o < end && o + texts[i]!.length > start ? [i] : []));
  }
  const line = Math.max(...sure.map((s) => s.bottom - s.top));
  const blocks = blocksOf(sure, line);
  const taken = new Uint8Array(p.length);
  const chosen: Box[] = [];
  // Greedy: the block adding most of the passage, while what it adds is more than a repeated phrase.
  for (;;) {
    let best = -1;
    let gain = 0;
    blocks.forEach((b, i) => {
      const g = adds(b.covers, taken);
      if (g > gain) [best, gain] = [i, g];
    });
    if (best < 0 || (chosen.length > 0 && gain < Math.min(40, p.length / 4))) break;
    const b = blocks.splice(best, 1)[0]!;
    for (const [a, z] of b.covers) taken.fill(1, a, z);
    chosen.push(b);
  }
  return spans.flatMap((s, i) => {
    if (!belongs[i]) return [];
    const x = (s.left + s.right) / 2;
    const y = (s.top + s.bottom) / 2;
    if (edgeOnly[i])
      // The line just above or below a chosen block, or one of its own lines: never one set apart from it.
      return chosen.some(
        (b) => x >= b.left - line && x <= b.right + line && s.bottom >= b.top - line * 0.6 && s.top <= b.bottom + line * 0.6,
      )
        ? [i]
        : [];
    // A short span (a word, a number) counts where it sits in a chosen block, a line's height around it.
    return chosen.some((b) => x >= b.left - line && x <= b.right + line && y >= b.top - line * 1.5 && y <= b.bottom + line * 1.5)
      ? [i]
      : [];
  });
}
