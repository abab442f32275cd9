// Running headers, footers and page numbers: the lines at a page's top and bottom that are furniture,
// not content. What is looked at is a page's header block and footer block — the lines above the
// first wide gap from the top, and below the last one from the bottom — within 20% of the page's
// edge (LaTeX's running heads sit ~12% down, its page numbers up to 17% up: a fixed 8% band missed
// them). A line there is furniture when it is a page number, when the same line (digits blanked) recurs on the pages of its parity —
// books and journals alternate left and right heads — or of all pages, when it stands in the place and
// size where most pages have such a line (a chapter's head on its one page), when it starts or ends with
// the page's number, or when it is what a journal prints on an article's first page only (its
// citation line above, its copyright, DOI and dates below). Nearer the edge (8%), in a one- or
// two-page document, where nothing can repeat, any short line set apart from the body is furniture.
import { type Fragment, rowsOf } from './pdf-layout.js';

/** The band nearest the edge, where a short line set apart is furniture even when nothing repeats. */
export const MARGIN = 0.08;
/** How far in a header or footer block may reach: LaTeX's default heads sit ~12% down, its page number 17% up on A4. */
export const FURNITURE_ZONE = 0.2;
/** A gap this many line heights wide sets a header or footer block apart from the body. */
const APART = 1.8;

/** Page numbers and running headers/footers are compared with digits blanked out. */
export function marginSignature(text: string): string {
  return text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();
}

/** A line that is only a page number ("7", "- 7 -", "Page 7 of 12", "vii"). */
export function isPageNumber(text: string): boolean {
  return /^(page\s*)?[-–—(]?\s*(\d{1,5}|[ivxlcdm]{1,7})\s*[-–—)]?(\s*(of|\/)\s*\d{1,5})?$/i.test(text.trim());
}

/**
 * What journals print on an article's first page only: the citation line (volume, issue, pages, year)
 * above, and the copyright, ISSN, DOI, licence and received/accepted dates below.
 */
const JOURNAL_LINE =
  /\(\d{4}\)\s*\d+\s*[–-]\s*\d+|©|\bcopyright\b|\bdoi\b|\bissn\b|\bisbn\b|all rights reserved|\blicen[cs]ed?\b|\bpublished by\b|\breceived\b|\baccepted\b|\brevised\b|available online|https?:\/\/|\bvol\.|\bvolume \d|\bno\. ?\d|\bpp\. ?\d/i;

/** A page's text in one direction: its fragments and the height of the page turned that way. */
export interface PagePart {
  frags: Fragment[];
  height: number;
}

interface Line {
  frags: Fragment[];
  text: string;
  /** Within the band nearest the edge (MARGIN). */
  edge: boolean;
  /** How many lines its block has (a header or footer is one or two). */
  lines: number;
  /** No other text within a wide gap above or below the line itself. */
  alone: boolean;
  /** Where it stands and how big it is set: a running head's place, whatever its words. */
  slot: string;
}

/** A running head is a short line: a page's first line of prose is not one, even if it repeats. */
const HEAD_MAX = 70;

/** The page's header and footer blocks, line by line (a line's fragments together: "7" … "Journal"). */
function blockLines(p: PagePart): Line[] {
  const rows = rowsOf(p.frags).map((row) => row.sort((a, b) => a.x0 - b.x0));
  if (rows.length < 2) return [];
  const h = (row: Fragment[]): number => Math.max(...row.map((f) => f.height), 1);
  const out: Line[] = [];
  // From the top down (rows come top first), then from the bottom up.
  for (const top of [true, false]) {
    const order = top ? rows : [...rows].reverse();
    const inZone = (row: Fragment[]): boolean =>
      top ? row[0]!.y > p.height * (1 - FURNITURE_ZONE) : row[0]!.y < p.height * FURNITURE_ZONE;
    const block: Fragment[][] = [];
    let apart = false;
    for (let i = 0; i < order.length - 1; i++) {
      const row = order[i]!;
      if (!inZone(row)) break;
      block.push(row);
      // Measured in the block line's own height: a running head in small type above a large title is
      // still set apart from it.
      const gap = Math.abs(row[0]!.y - order[i + 1]![0]!.y);
      if (gap >= APART * h(row)) {
        apart = true;
        break;
      }
    }
    if (!apart) continue; // no wide gap within the zone: it is all body
    const nearEdge = (row: Fragment[]): boolean => (top ? row[0]!.y > p.height * (1 - MARGIN) : row[0]!.y < p.height * MARGIN);
    const alone = (row: Fragment[]): boolean => p.frags.every((g) => row.includes(g) || Math.abs(g.y - row[0]!.y) >= APART * h(row));
    for (const row of block)
      out.push({
        frags: row,
        text: row.map((f) => f.text).join(' '),
        edge: nearEdge(row),
        lines: block.length,
        alone: alone(row),
        slot: `${top ? 'head' : 'foot'}:${Math.round(row[0]!.y / 2)}:${Math.round(h(row) * 2)}`,
      });
  }
  return out;
}

/** Counts each block line's signature once per page, by the page's parity, over the pages read so far. */
export class MarginTracker {
  private counts = [new Map<string, number>(), new Map<string, number>()];
  private pages = [0, 0];
  /** Pages with a short header or footer line in each place and size (of either parity). */
  private slots = new Map<string, number>();

  /** `pageCount`: a document too short to show repetition is judged by position alone. */
  constructor(private readonly pageCount: number) {}

  /** A page's parts: its main text and any text running another way (a turned page keeps its header upright). */
  see(page: number, parts: PagePart[]): void {
    const parity = page % 2;
    this.pages[parity]!++;
    const lines = parts.flatMap((p) => blockLines(p));
    const seen = new Set(lines.map((l) => marginSignature(l.text)));
    const m = this.counts[parity]!;
    for (const s of seen) m.set(s, (m.get(s) ?? 0) + 1);
    for (const slot of new Set(lines.filter(headLike).map((l) => l.slot))) this.slots.set(slot, (this.slots.get(slot) ?? 0) + 1);
  }

  /**
   * A short line set apart in the place and size where most pages have one: a chapter's running head
   * on the one page of the chapter that has it ("Chapter One" over page 1 only, "Chapter Two" over
   * pages 3 and 5), which no repetition of its words can show.
   */
  private inHeadSlot(slot: string): boolean {
    const total = this.pages[0]! + this.pages[1]!;
    return total >= 4 && (this.slots.get(slot) ?? 0) >= Math.max(3, total * 0.6);
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
    for (const line of blockLines(p)) {
      // Nearest the edge a line of any length may repeat (a long footer); further in, only a head's.
      const short = line.edge || line.text.length <= HEAD_MAX;
      const furniture =
        isPageNumber(line.text) ||
        (short && this.repeats(marginSignature(line.text), page)) ||
        (headLike(line) && this.inHeadSlot(line.slot)) ||
        // "1 Introduction" heading page 1 is no running head: a line naming the page counts near the edge only.
        (line.edge && namesPage(line.text, page)) ||
        (page === 1 && this.pageCount > 1 && JOURNAL_LINE.test(line.text) && line.text.length <= 160) ||
        // Nothing can repeat in one or two pages: by position, a header or footer of a line or two
        // (a table's last rows at the foot of a page are more lines than that), or a line on its own.
        (line.edge && this.pageCount < 3 && line.text.length <= 80 && (line.lines <= 2 || line.alone));
      for (const f of line.frags) if (furniture || (line.edge && isPageNumber(f.text))) drop.add(f);
    }
    return p.frags.filter((f) => !drop.has(f));
  }
}

/**
 * Shaped as a running head: short, and a block of a line or two or a line on its own — not the last
 * line of a paragraph that happens to end near the top of every page.
 */
function headLike(line: Line): boolean {
  return line.text.length <= HEAD_MAX && (line.lines <= 2 || line.alone);
}

/** A short line that starts or ends with the page's own number. */
function namesPage(text: string, page: number): boolean {
  const t = text.trim();
  if (t.length > 100) return false;
  const m = /^(\d{1,5})\b|\b(\d{1,5})$/.exec(t);
  return m !== null && Number(m[1] ?? m[2]) === page;
}
