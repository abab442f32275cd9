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
  /**
   * Items running in each other direction, each turned upright on its own, with that page height;
   * `margin`: all of them stand in the outer eighth of the page's width as the body reads it (a
   * production stamp, arXiv's identifier set up the margin).
   */
  asides: { items: TextItem[]; height: number; margin: boolean }[];
}

/** The share of the page's width on either side where text running another way is a margin stamp. */
const MARGIN_SHARE = 0.125;

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
  /** The page turned by q quarters: a point's place in it, and its size. */
  const frame = (q: number) => {
    const theta = (q * Math.PI) / 2;
    const cos = Math.round(Math.cos(theta));
    const sin = Math.round(Math.sin(theta));
    const rot = (x: number, y: number): [number, number] => [x * cos + y * sin, -x * sin + y * cos];
    const corners = [rot(0, 0), rot(viewport.width, 0), rot(0, viewport.height), rot(viewport.width, viewport.height)];
    const minX = Math.min(...corners.map((c) => c[0]));
    const maxX = Math.max(...corners.map((c) => c[0]));
    const minY = Math.min(...corners.map((c) => c[1]));
    const maxY = Math.max(...corners.map((c) => c[1]));
    const at = (x: number, y: number): [number, number] => {
      const [rx, ry] = rot(x, y);
      return [rx - minX, maxY - ry];
    };
    return { at, width: maxX - minX, height: maxY - minY };
  };
  const turn = (q: number): { items: TextItem[]; height: number } => {
    const f = frame(q);
    const items = placed
      .filter((p) => p.q === q)
      .map((p) => {
        const [x, y] = f.at(p.x, p.y);
        return { str: p.str, x, y, width: p.width, height: p.height };
      });
    return { items, height: f.height };
  };
  const body = frame(main);
  const inMargin = (p: { x: number; y: number }): boolean => {
    const x = body.at(p.x, p.y)[0];
    return x < MARGIN_SHARE * body.width || x > (1 - MARGIN_SHARE) * body.width;
  };
  const asides = [0, 1, 2, 3]
    .filter((q) => q !== main && weight[q]! > 0)
    .map((q) => ({ ...turn(q), margin: placed.filter((p) => p.q === q).every(inMargin) }));
  return { main: turn(main).items, height: body.height, asides };
}
