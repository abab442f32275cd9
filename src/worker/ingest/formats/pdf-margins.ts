// Running headers, footers and page numbers: the lines in a page's top and bottom bands that are
// furniture, not content. A line there is furniture when it is a page number, when the same line
// (digits blanked) recurs on the pages of its parity — books and journals alternate left and right
// headers — or, on documents too short to show repetition, when it sits apart from the body, as a
// running head does, and names the page number ("Annual Report 2024 · 7") — or, in a one- or
// two-page document, is any short line set apart there.
import { type Fragment, rowsOf } from './pdf-layout.js';

/** Top and bottom bands of a page where running headers and footers live. */
export const MARGIN = 0.08;

/** Page numbers and running headers/footers are compared with digits blanked out. */
export function marginSignature(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** A line that is only a page number ("7", "- 7 -", "Page 7 of 12", "vii"). */
export function isPageNumber(text: string): boolean {
  return /^(page\s*)?[-–—(]?\s*(\d{1,5}|[ivxlcdm]{1,7})\s*[-–—)]?(\s*(of|\/)\s*\d{1,5})?$/i.test(text.trim());
}

/** A page's text in one direction: its fragments and the height of the page turned that way. */
export interface PagePart {
  frags: Fragment[];
  height: number;
}

/** The page's lines in its top and bottom bands, each line's fragments together (a header may be "7" … "Journal"). */
function marginLines(p: PagePart): Fragment[][] {
  const edge = p.frags.filter((f) => f.y > p.height * (1 - MARGIN) || f.y < p.height * MARGIN);
  return rowsOf(edge).map((row) => row.sort((a, b) => a.x0 - b.x0));
}

const lineText = (row: Fragment[]): string => row.map((f) => f.text).join(' ');

/** Counts each margin line's signature once per page, by the page's parity, over the pages read so far. */
export class MarginTracker {
  private counts = [new Map<string, number>(), new Map<string, number>()];
  private pages = [0, 0];

  /** `pageCount`: a document too short to show repetition is judged by position alone. */
  constructor(private readonly pageCount: number) {}

  /** A page's parts: its main text and any text running another way (a turned page keeps its header upright). */
  see(page: number, parts: PagePart[]): void {
    const parity = page % 2;
    this.pages[parity]!++;
    const seen = new Set(parts.flatMap((p) => marginLines(p).map((row) => marginSignature(lineText(row)))));
    const m = this.counts[parity]!;
    for (const s of seen) m.set(s, (m.get(s) ?? 0) + 1);
  }

  /** Recurs on at least half the pages of its parity (or of all pages), once three pages have been read. */
  private repeats(sig: string, page: number): boolean {
    const total = this.pages[0]! + this.pages[1]!;
    if (total < 2) return false;
    const same = this.counts[page % 2]!.get(sig) ?? 0;
    const other = this.counts[1 - (page % 2)]!.get(sig) ?? 0;
    if (total === 2) return same + other === 2; // on both pages of what has been read
    return same >= Math.max(2, this.pages[page % 2]! * 0.5) || same + other >= Math.max(3, total * 0.5);
  }

  /** The page's fragments without its furniture. */
  body(page: number, p: PagePart): Fragment[] {
    const drop = new Set<Fragment>();
    for (const row of marginLines(p)) {
      const text = lineText(row);
      const furniture =
        isPageNumber(text) ||
        this.repeats(marginSignature(text), page) ||
        (apart(row, p.frags) && (namesPage(text, page) || (this.pageCount < 3 && text.length <= 80)));
      for (const f of row) if (furniture || isPageNumber(f.text)) drop.add(f);
    }
    return p.frags.filter((f) => !drop.has(f));
  }
}

/** No other line within 1.8 line heights above or below: a running head set off from the body. */
function apart(row: Fragment[], all: Fragment[]): boolean {
  const h = Math.max(...row.map((f) => f.height), 1);
  const y = row[0]!.y;
  return all.every((g) => row.includes(g) || Math.abs(g.y - y) >= 1.8 * h);
}

/** A short line that starts or ends with the page's own number. */
function namesPage(text: string, page: number): boolean {
  const t = text.trim();
  if (t.length > 100) return false;
  const m = /^(\d{1,5})\b|\b(\d{1,5})$/.exec(t);
  return m !== null && Number(m[1] ?? m[2]) === page;
}
