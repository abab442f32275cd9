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

/** A CJK font a PDF names without embedding it, as ReportLab's CID fonts and many Asian producers write them. */
export const CJK_FONTS = {
  japanese: { font: 'HeiseiMin-W3', encoding: 'UniJIS-UCS2-H', ordering: 'Japan1' },
  chinese: { font: 'STSong-Light', encoding: 'UniGB-UCS2-H', ordering: 'GB1' },
} as const;

/**
 * One page of lines in a CJK font that is not embedded: its text is codes of a predefined CMap
 * (UCS-2 here), which a reader must load to know the characters. Written out by hand: pdf-lib
 * embeds every font it uses.
 */
export function unembeddedCjkPdf(lines: string[], font: (typeof CJK_FONTS)[keyof typeof CJK_FONTS]): Uint8Array {
  const ucs2 = (s: string): string => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(4, '0')).join('');
  const text = lines.map((l, i) => `BT /F1 20 Tf 40 ${760 - i * 30} Td <${ucs2(l)}> Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>',
    `<< /Length ${Buffer.byteLength(text)} >>\nstream\n${text}\nendstream`,
    `<< /Type /Font /Subtype /Type0 /BaseFont /${font.font} /Encoding /${font.encoding} /DescendantFonts [6 0 R] >>`,
    `<< /Type /Font /Subtype /CIDFontType0 /BaseFont /${font.font} /CIDSystemInfo << /Registry (Adobe) /Ordering (${font.ordering}) /Supplement 2 >> /FontDescriptor 7 0 R /DW 1000 >>`,
    `<< /Type /FontDescriptor /FontName /${font.font} /Flags 6 /FontBBox [-123 -257 1001 910] /ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 69 >>`,
  ];
  let pdf = '%PDF-1.4\n';
  const offsets = objects.map((o, i) => {
    const at = Buffer.byteLength(pdf);
    pdf += `${i + 1} 0 obj\n${o}\nendobj\n`;
    return at;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(pdf, 'latin1'));
}
