// PDFs whose page contents are known, for tests and benchmarks (pdf-lib, standard Helvetica): plain
// pages, two-column pages, words hyphenated across lines, and a running header and footer on every
// page, so a test can assert that a phrase from page N is cited as page N and the furniture is gone.
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface PageSpec {
  /** Body lines, top to bottom. */
  lines?: string[];
  /** Two columns side by side (read left column first). */
  columns?: [string[], string[]];
}

export interface PdfSpec {
  pages: PageSpec[];
  header?: string;
  /** "Page {n} of {total}" is filled in. */
  footer?: string;
  title?: string;
}

const SIZE = 11;
const LEAD = 14;

export async function makePdf(spec: PdfSpec): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  if (spec.title) doc.setTitle(spec.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const total = spec.pages.length;
  spec.pages.forEach((p, i) => {
    const page = doc.addPage([612, 792]);
    if (spec.header) page.drawText(spec.header, { x: 72, y: 752, size: 9, font });
    if (spec.footer)
      page.drawText(spec.footer.replace('{n}', String(i + 1)).replace('{total}', String(total)), { x: 270, y: 30, size: 9, font });
    let y = 700;
    for (const line of p.lines ?? []) {
      if (line === '')
        y -= LEAD; // a blank line: paragraph break
      else page.drawText(line, { x: 72, y, size: SIZE, font });
      y -= LEAD;
    }
    if (p.columns) {
      const [left, right] = p.columns;
      left.forEach((line, j) => page.drawText(line, { x: 72, y: y - j * LEAD, size: SIZE, font }));
      right.forEach((line, j) => page.drawText(line, { x: 324, y: y - j * LEAD, size: SIZE, font }));
    }
  });
  return doc.save();
}

/** A long document of generated prose: `pages` pages of `linesPerPage` lines, every page's words known. */
export async function makeLongPdf(pages: number, linesPerPage = 38): Promise<Uint8Array> {
  const words = ['flow', 'boundary', 'layer', 'pressure', 'wing', 'shock', 'heat', 'transfer', 'surface', 'velocity', 'model', 'test'];
  const spec: PdfSpec = { pages: [], header: 'Generated report for kb benchmarks', footer: 'Page {n} of {total}' };
  let k = 0;
  for (let p = 0; p < pages; p++) {
    const lines: string[] = [];
    for (let l = 0; l < linesPerPage; l++) {
      if (l % 9 === 8) {
        lines.push('');
        continue;
      }
      const ws: string[] = [];
      for (let w = 0; w < 11; w++) ws.push(words[(k++ * 7 + p) % words.length]!);
      lines.push(`${ws.join(' ')} ${p + 1}.${l}`);
    }
    spec.pages.push({ lines });
  }
  return makePdf(spec);
}
