// pdf.js text items → TextItems in the page as a person sees it: the page's /Rotate applied (through
// the viewport), then the whole page turned so its main text direction runs left to right — a
// landscape table set sideways on a portrait page reads as rows. Text running another way (the
// vertical stamp in an arXiv margin) is laid out on its own and read after the page's body.
import type { TextItem } from './pdf-layout.js';

export interface RawItem {
  str: string;
  /** pdf.js's text matrix: [a, b, c, d, e, f]. */
  transform: number[];
  width: number;
  height: number;
}

export interface UprightText {
  /** Items in the main direction, y up from the page's foot. */
  main: TextItem[];
  /** The upright page's height, for the header and footer bands. */
  height: number;
  /** Items running in each other direction, each turned upright on its own, with that page height. */
  asides: { items: TextItem[]; height: number }[];
}

/** Typographic ligatures (ﬁ, ﬂ, ﬀ …) as the letters they stand for, so the words are searchable. */
const LIGATURE = /[\ufb00-\ufb06]/g;

function multiply(m: number[], n: number[]): number[] {
  const [a, b, c, d, e, f] = m as [number, number, number, number, number, number];
  const [p, q, r, s, t, u] = n as [number, number, number, number, number, number];
  return [p * a + q * c, p * b + q * d, r * a + s * c, r * b + s * d, t * a + u * c + e, t * b + u * d + f];
}

/** Quarter turns (0–3) of a direction in device space (y down). */
function quarter(m: number[]): number {
  return ((Math.round(Math.atan2(m[1]!, m[0]!) / (Math.PI / 2)) % 4) + 4) % 4;
}

/**
 * `viewport` is pdf.js's viewport transform at scale 1 (it holds the page's /Rotate) and its size.
 */
export function uprightItems(raw: RawItem[], viewport: { transform: number[]; width: number; height: number }): UprightText {
  const placed = raw
    .filter((it) => it.str.length > 0)
    .map((it) => {
      const m = multiply(viewport.transform, it.transform);
      const size = Math.hypot(m[2]!, m[3]!) || it.height;
      return {
        str: it.str.replace(LIGATURE, (l) => l.normalize('NFKC')),
        q: quarter(m),
        x: m[4]!,
        y: m[5]!,
        width: it.width,
        height: it.height || size,
      };
    });
  const weight = [0, 0, 0, 0];
  for (const p of placed) weight[p.q]! += p.str.trim().length;
  const main = weight.indexOf(Math.max(...weight));
  const turn = (q: number): { items: TextItem[]; height: number } => {
    const theta = (q * Math.PI) / 2;
    const cos = Math.round(Math.cos(theta));
    const sin = Math.round(Math.sin(theta));
    const rot = (x: number, y: number): [number, number] => [x * cos + y * sin, -x * sin + y * cos];
    const corners = [rot(0, 0), rot(viewport.width, 0), rot(0, viewport.height), rot(viewport.width, viewport.height)];
    const minX = Math.min(...corners.map((c) => c[0]));
    const minY = Math.min(...corners.map((c) => c[1]));
    const maxY = Math.max(...corners.map((c) => c[1]));
    const items = placed
      .filter((p) => p.q === q)
      .map((p) => {
        const [x, y] = rot(p.x, p.y);
        return { str: p.str, x: x - minX, y: maxY - y, width: p.width, height: p.height };
      });
    return { items, height: maxY - minY };
  };
  const body = turn(main);
  const asides = [0, 1, 2, 3].filter((q) => q !== main && weight[q]! > 0).map(turn);
  return { main: body.items, height: body.height, asides };
}
