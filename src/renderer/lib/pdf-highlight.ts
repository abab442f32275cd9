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

/**
 * Which text-layer spans hold the passage. A producer may emit a page's lines in any order (across
 * columns, say), so spans are not taken as a run between the passage's start and end: a span is
 * marked when its text belongs to the passage and it lies in the region the passage's distinctive
 * spans (a dozen letters or more) cover, so short words of a neighbouring column stay unmarked.
 */
export function spansToMark(spans: SpanBox[], passage: string): number[] {
  const p = norm(passage);
  if (p.length === 0) return [];
  const texts = spans.map((s) => norm(s.text));
  const belongs = texts.map((t) => t.length > 0 && inPassage(t, p));
  const sure = spans.filter((_, i) => belongs[i] && texts[i]!.length >= 12);
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
  const left = Math.min(...sure.map((s) => s.left)) - line;
  const right = Math.max(...sure.map((s) => s.right)) + line;
  const top = Math.min(...sure.map((s) => s.top)) - line * 1.5;
  const bottom = Math.max(...sure.map((s) => s.bottom)) + line * 1.5;
  return spans.flatMap((s, i) => {
    const x = (s.left + s.right) / 2;
    const y = (s.top + s.bottom) / 2;
    return belongs[i] && x >= left && x <= right && y >= top && y <= bottom ? [i] : [];
  });
}

