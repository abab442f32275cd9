// The PDF layout ground truth (fixtures/pdf-layout): PDFs whose paragraphs, and the order a person
// reads them in, are known. Most are typeset by pdfLaTeX (article, twocolumn, multicol, fancyhdr,
// footnotes, tabular, minipage sidebars, pdflscape), so their text items come out as a real producer
// emits them, ligatures, hyphenation and superscript footnote marks included; one is drawn with
// pdf-lib line by line *across* three columns (as the typesetters of government gazettes emit them)
// and has a page turned by 270°. Each PDF has a truth file: per page, its flows (the body, a sidebar,
// footnotes, a table's rows) as ordered paragraphs, and the running headers/footers that must not leak.
//
//   npx tsx scripts/make-layout-pdfs.ts        (needs pdflatex and pdftotext: texlive-latex-base,
//                                               texlive-latex-recommended, poppler-utils)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { degrees, PDFDocument, type PDFFont, type PDFPage, StandardFonts } from 'pdf-lib';

export interface Flow {
  /** body, sidebar, footnotes, table, caption */
  kind: string;
  paras: string[];
}
export interface TruthPage {
  page: number;
  flows: Flow[];
  /** Running header/footer lines (page numbers included) that must not appear in the page's text. */
  furniture: string[];
}
export interface Truth {
  name: string;
  layout: string;
  producer: string;
  pages: TruthPage[];
}

const OUT = join(import.meta.dirname, '..', 'fixtures', 'pdf-layout');

// A fixed vocabulary with many long words (so TeX hyphenates) and no digits; header words are not in it.
const VOCAB = (
  'river mountain engine window theory garden silver market pattern signal harbour lantern meadow ' +
  'practical comprehensive responsibility administration environmental consideration organisation ' +
  'interpretation characteristic documentation infrastructure transportation acknowledgement ' +
  'extraordinary circumstances independently representative approximately simultaneously ' +
  'manufacturer neighbourhood photographer qualification refrigerator spectacular temperature ' +
  'understanding vulnerability investigation communication determination establishment ' +
  'apple basket candle dragon eagle falcon glacier hammer island jungle kettle ladder magnet ' +
  'needle orchard pepper quartz rabbit saddle tunnel umbrella valley walnut yellow zipper ' +
  'careful gentle honest humble lively modest narrow polite quiet rapid steady tender vivid ' +
  'measure observe arrange balance collect deliver explain follow gather handle improve ' +
  'journey kingdom library machine network orchestra passenger question research science ' +
  'village weather animal bridge castle desert forest harvest instrument kitchen ' +
  'the of and to in for with on by from as at into over under between through across ' +
  'a an this that these those every each some many several few most other another ' +
  'quickly slowly carefully rarely often always never together nearly almost ' +
  'municipal provincial agricultural industrial educational historical geographical ' +
  'telescope microscope thermometer barometer compass calendar chronicle manuscript ' +
  'accommodation announcement arrangement assessment commitment development equipment ' +
  'government management measurement requirement settlement statement treatment ' +
  'electricity hospitality opportunity personality possibility probability university'
).split(/\s+/);
const COMPOUNDS = [
  'well-known',
  'long-term',
  'self-evident',
  'cross-section',
  'state-of-the-art',
  'high-speed',
  'time-consuming',
  'open-ended',
];

/** A small deterministic PRNG (mulberry32), so the fixtures are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Prose {
  private r: () => number;
  constructor(seed: number) {
    this.r = rng(seed);
  }
  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  sentence(): string {
    const n = 8 + Math.floor(this.r() * 9);
    const ws: string[] = [];
    for (let i = 0; i < n; i++) ws.push(this.r() < 0.04 ? this.pick(COMPOUNDS) : this.pick(VOCAB));
    if (n > 10 && this.r() < 0.4) ws[Math.floor(n / 2)] += ',';
    const s = ws.join(' ');
    return s[0]!.toUpperCase() + s.slice(1) + '.';
  }
  para(minWords: number): string {
    const out: string[] = [];
    while (out.join(' ').split(' ').length < minWords) out.push(this.sentence());
    return out.join(' ');
  }
  words(n: number): string {
    const ws: string[] = [];
    for (let i = 0; i < n; i++) ws.push(this.pick(VOCAB.filter((w) => w.length > 3)));
    return ws.join(' ');
  }
}

const HEADER_ODD = 'Layout Studies Quarterly';
const HEADER_EVEN = 'Trial Fixture Press';

/** pdfLaTeX preamble: running headers alternate by page parity, the page number in the header's outer corner. */
function preamble(opts: { cls?: string; size?: string; extra?: string; landscape?: boolean }): string {
  return [
    `\\documentclass[${opts.size ?? '10pt'},twoside${opts.cls ? ',' + opts.cls : ''}]{article}`,
    `\\usepackage[${opts.landscape ? 'landscape,' : ''}letterpaper,margin=0.9in,headsep=14pt,footskip=28pt]{geometry}`,
    '\\usepackage{multicol}\\usepackage{fancyhdr}\\usepackage{pdflscape}',
    opts.extra ?? '',
    '\\pagestyle{fancy}\\fancyhf{}',
    `\\fancyhead[RO]{${HEADER_ODD}\\quad\\thepage}\\fancyhead[LE]{\\thepage\\quad ${HEADER_EVEN}}`,
    `\\fancyfoot[C]{Issue of the layout trials}`,
    '\\renewcommand{\\headrulewidth}{0pt}',
    '\\setlength{\\parindent}{1em}\\setlength{\\parskip}{4pt}',
    '\\begin{document}',
  ].join('\n');
}

function furniture(page: number): string[] {
  return [page % 2 === 1 ? HEADER_ODD : HEADER_EVEN, 'Issue of the layout trials', String(page)];
}

interface TexPage {
  tex: string;
  flows: Flow[];
}

function texDoc(name: string, layout: string, pre: string, pages: TexPage[]): { tex: string; truth: Truth } {
  const tex = `${pre}\n${pages.map((p) => p.tex).join('\n\\clearpage\n')}\n\\end{document}\n`;
  return {
    tex,
    truth: {
      name,
      layout,
      producer: 'pdfLaTeX',
      pages: pages.map((p, i) => ({ page: i + 1, flows: p.flows, furniture: furniture(i + 1) })),
    },
  };
}

const body = (paras: string[]): Flow => ({ kind: 'body', paras });

/** Paragraphs typeset in k columns (multicol), or plain when k is 1. */
function columnsTex(k: number, paras: string[]): string {
  const text = paras.join('\n\n');
  return k === 1 ? text : `\\begin{multicols}{${k}}\n${text}\n\\end{multicols}`;
}

function heading(p: Prose): string {
  const h = p.words(3);
  return h[0]!.toUpperCase() + h.slice(1);
}

function docs(): { tex: string; truth: Truth }[] {
  const out: { tex: string; truth: Truth }[] = [];
  const p = new Prose(7);
  const paras = (n: number, words: number): string[] => Array.from({ length: n }, () => p.para(words));

  // LaTeX's own article with its default page geometry: the running heads (myheadings: the authors on
  // even pages, the short title on odd ones, the page number at the outer edge) sit ~12% down the page,
  // well inside the band an 8% margin looks at; page 1 has no head, its page number at the foot.
  {
    const q = new Prose(71);
    const pages: TexPage[] = [];
    for (let i = 0; i < 5; i++) {
      const h = heading(q);
      const ps = Array.from({ length: 3 }, () => q.para(55));
      pages.push({
        tex: `${i === 0 ? '\\section*{Soil moisture under hedgerows}\n' : ''}\\section*{${h}}\n${ps.join('\n\n')}`,
        flows: [body([...(i === 0 ? ['Soil moisture under hedgerows'] : []), h, ...ps])],
      });
    }
    const pre = [
      '\\documentclass[11pt,twoside]{article}',
      '\\pagestyle{myheadings}\\markboth{Quentin Arbuckle and Yolanda Fenwick}{Hedgerow soil moisture}',
      '\\setlength{\\parindent}{1em}\\setlength{\\parskip}{4pt}',
      '\\begin{document}\\thispagestyle{plain}',
    ].join('\n');
    const tex = `${pre}\n${pages.map((x) => x.tex).join('\n\\clearpage\n')}\n\\end{document}\n`;
    const heads = (n: number): string[] =>
      n === 1 ? ['1'] : [String(n), n % 2 === 0 ? 'Quentin Arbuckle and Yolanda Fenwick' : 'Hedgerow soil moisture'];
    out.push({
      tex,
      truth: {
        name: 'latex-heads',
        layout: '1 column, LaTeX running heads 12% down',
        producer: 'pdfLaTeX',
        pages: pages.map((x, i) => ({ page: i + 1, flows: x.flows, furniture: heads(i + 1) })),
      },
    });
  }

  // One column, four pages, alternating headers, a section heading.
  {
    const pages: TexPage[] = [];
    for (let i = 0; i < 4; i++) {
      const h = heading(p);
      const ps = paras(5, 70);
      pages.push({ tex: `\\section*{${h}}\n${columnsTex(1, ps)}`, flows: [body([h, ...ps])] });
    }
    out.push(texDoc('one-column', '1 column', preamble({}), pages));
  }
  // Two columns with LaTeX's own twocolumn class option.
  {
    const pages: TexPage[] = [];
    for (let i = 0; i < 3; i++) {
      const ps = paras(6, 75);
      pages.push({ tex: ps.join('\n\n'), flows: [body(ps)] });
    }
    out.push(texDoc('two-column', '2 columns', preamble({ cls: 'twocolumn' }), pages));
  }
  // Three and four columns (multicol), small type, as in gazettes and newsletters.
  for (const [k, name, size, n, words] of [
    [3, 'three-column', '\\small', 8, 70],
    [4, 'four-column', '\\footnotesize', 9, 65],
  ] as const) {
    const pages: TexPage[] = [];
    for (let i = 0; i < 3; i++) {
      const ps = paras(n, words);
      pages.push({ tex: `${size}\n${columnsTex(k, ps)}`, flows: [body(ps)] });
    }
    out.push(texDoc(name, `${k} columns`, preamble({ extra: '\\setlength{\\columnsep}{12pt}' }), pages));
  }
  // Mixed: full-width title and abstract, two columns, a full-width figure caption, three columns; then
  // columns, a full-width paragraph, and columns again.
  {
    const title = heading(p);
    const abs = p.para(80);
    const a = paras(3, 55);
    const cap = `Figure one: ${p.para(25)}`;
    const b = paras(3, 40);
    const page1 = {
      tex: `\\begin{center}{\\LARGE ${title}}\\end{center}\n\\begin{abstract}\n${abs}\n\\end{abstract}\n${columnsTex(2, a)}\n\\begin{center}\\fbox{\\parbox{0.6\\textwidth}{\\vspace{0.8in}}}\\\\[4pt]\\parbox{0.9\\textwidth}{${cap}}\\end{center}\n${columnsTex(3, b)}`,
      flows: [body([title, 'Abstract', abs, ...a]), { kind: 'caption', paras: [cap] }, body(b)],
    };
    const c = paras(3, 60);
    const wide = p.para(70);
    const d = paras(3, 60);
    const page2 = { tex: `${columnsTex(2, c)}\n\n\\noindent ${wide}\n\n${columnsTex(3, d)}`, flows: [body([...c, wide, ...d])] };
    out.push(texDoc('mixed', 'full width and columns', preamble({}), [page1, page2]));
  }
  // Sidebar: a framed box beside the main text, and a boxed note inside a column.
  {
    const main = paras(4, 60);
    const side = paras(3, 35);
    const page1 = {
      tex: `\\noindent\\begin{minipage}[t]{0.62\\textwidth}\n${main.join('\n\n')}\n\\end{minipage}\\hfill\\fbox{\\begin{minipage}[t]{0.31\\textwidth}\\small\n${side.join('\n\n')}\n\\end{minipage}}`,
      flows: [body(main), { kind: 'sidebar', paras: side }],
    };
    const c1 = paras(3, 70);
    const note = p.para(40);
    const c2 = paras(3, 70);
    const page2 = {
      tex: `\\begin{multicols}{2}\n${c1.join('\n\n')}\n\n\\noindent\\fbox{\\parbox{0.95\\linewidth}{\\small ${note}}}\n\n${c2.join('\n\n')}\n\\end{multicols}`,
      flows: [body([...c1, note, ...c2])],
    };
    out.push(texDoc('sidebar', 'sidebar', preamble({}), [page1, page2]));
  }
  // A table between two-column blocks.
  {
    const a = paras(3, 55);
    const rows = Array.from({ length: 7 }, () => [p.words(3), p.words(3), p.words(3)]);
    const b = paras(3, 55);
    const table = `\\begin{center}\\begin{tabular}{lll}\\hline\n${rows.map((r) => r.join(' & ') + ' \\\\').join('\n')}\n\\hline\\end{tabular}\\end{center}`;
    out.push(
      texDoc('table', 'table between columns', preamble({}), [
        {
          tex: `${columnsTex(2, a)}\n${table}\n${columnsTex(2, b)}`,
          flows: [body([...a, ...b]), { kind: 'table', paras: rows.map((r) => r.join(' ')) }],
        },
      ]),
    );
  }
  // Footnotes: superscript marks in the text, small notes at the foot of the page.
  {
    const pages: TexPage[] = [];
    for (const k of [1, 2]) {
      const ps = paras(k === 1 ? 4 : 6, 60);
      const notes = paras(2, 25);
      // A mark after the fourth word of the first two paragraphs.
      const marked = ps.map((x, i) => {
        if (i >= 2) return x;
        const ws = x.split(' ');
        ws[3] += `\\footnote{${notes[i]}}`;
        return ws.join(' ');
      });
      pages.push({ tex: columnsTex(k, marked), flows: [body(ps), { kind: 'footnotes', paras: notes }] });
    }
    out.push(texDoc('footnotes', 'footnotes', preamble({}), pages));
  }
  // A landscape page (wide media) and a portrait page turned with pdflscape (/Rotate 90).
  {
    const ps = paras(5, 75);
    out.push(texDoc('landscape', 'landscape page', preamble({ landscape: true }), [{ tex: columnsTex(2, ps), flows: [body(ps)] }]));
    const a = paras(2, 60);
    const b = paras(6, 60);
    out.push(
      texDoc('rotated', 'rotated page', preamble({}), [
        { tex: columnsTex(1, a), flows: [body(a)] },
        { tex: `\\begin{landscape}\n${columnsTex(2, b)}\n\\end{landscape}`, flows: [body(b)] },
      ]),
    );
  }
  return out;
}

/** Greedy line breaking with the font's own widths. */
function breakLines(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(' ')) {
    const next = cur ? `${cur} ${w}` : w;
    if (cur && font.widthOfTextAtSize(next, size) > width) {
      lines.push(cur);
      cur = w;
    } else cur = next;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * Three columns emitted row by row across the page (left, middle, right line of one baseline, then the
 * next baseline), as gazette typesetters do, with a running header and footer; page 2 is turned by 270°.
 */
async function interleaved(): Promise<{ pdf: Uint8Array; truth: Truth }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const p = new Prose(99);
  const SIZE = 9;
  const LEAD = 11;
  const truth: Truth = { name: 'interleaved', layout: '3 columns, emitted across', producer: 'pdf-lib', pages: [] };
  const draw = (page: PDFPage, n: number, rotate: number): void => {
    const [W, H] = rotate % 180 === 0 ? [612, 792] : [792, 612];
    const cols = 3;
    const gap = 14;
    const colW = (W - 72 - gap * (cols - 1)) / cols;
    // Each column holds whole paragraphs with a blank line between them.
    const flows: string[] = [];
    const colLines: string[][] = [];
    const rowsPer = Math.floor((H - 72 - 60) / LEAD);
    for (let c = 0; c < cols; c++) {
      const lines: string[] = [];
      while (true) {
        const para = p.para(45);
        const ls = breakLines(para, font, SIZE, colW);
        if (lines.length + ls.length + 1 > rowsPer) break;
        if (lines.length > 0) lines.push('');
        lines.push(...ls);
        flows.push(para);
      }
      colLines.push(lines);
    }
    // Page space (x right, y up in the turned page's own frame) → media space.
    const at = (x: number, y: number): { x: number; y: number; rotate: ReturnType<typeof degrees> } =>
      rotate === 0 ? { x, y, rotate: degrees(0) } : { x: y, y: W - x, rotate: degrees(-90) };
    const text = (s: string, x: number, y: number, size: number): void => page.drawText(s, { ...at(x, y), size, font });
    text(`${n % 2 === 1 ? HEADER_ODD : HEADER_EVEN}   ${n}`, 36, H - 30, 8);
    const top = H - 60;
    for (let r = 0; r < rowsPer; r++) {
      for (let c = 0; c < cols; c++) {
        const line = colLines[c]![r];
        if (line) text(line, 36 + c * (colW + gap), top - r * LEAD, SIZE);
      }
    }
    text('Issue of the layout trials', W / 2 - 50, 24, 8);
    truth.pages.push({
      page: n,
      flows: [body(flows)],
      furniture: [n % 2 === 1 ? HEADER_ODD : HEADER_EVEN, 'Issue of the layout trials', String(n)],
    });
  };
  const p1 = doc.addPage([612, 792]);
  draw(p1, 1, 0);
  // Turned pages: the media stays portrait, the text runs up the page, and /Rotate 270 shows it upright.
  const p2 = doc.addPage([612, 792]);
  p2.setRotation(degrees(270));
  draw(p2, 2, 270);
  const p3 = doc.addPage([612, 792]);
  draw(p3, 3, 0);
  return { pdf: await doc.save({ useObjectStreams: false }), truth };
}

/** What sits at a page's top and bottom, drawn by pagedDoc: each line its text, height above the page's foot and size. */
interface Furniture {
  text: string;
  /** Distance of the baseline from the page's top (negative: from its bottom), in points. */
  from: number;
  size: number;
  /** left, right or centre. */
  align: 'left' | 'right' | 'centre';
}

/**
 * A document of whole paragraphs page by page, one column or two, with whatever furniture each page has:
 * the short documents (a memo, minutes of two pages) and the journal articles whose running heads sit
 * well inside the page (~12% down, as LaTeX's default geometry puts them) and whose first page has a
 * journal's footer and no running head.
 */
async function pagedDoc(o: {
  name: string;
  layout: string;
  seed: number;
  pages: number;
  columns: 1 | 2;
  /** Where the body starts and ends, from the page's top and bottom. */
  top: number;
  bottom: number;
  size: number;
  furniture: (page: number) => Furniture[];
  /** Text before the body on page 1 (a title, a byline): content, not furniture. */
  opening?: string[];
}): Promise<{ pdf: Uint8Array; truth: Truth }> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.TimesRoman);
  const bold = await doc.embedFont(StandardFonts.TimesRomanBold);
  const p = new Prose(o.seed);
  const [W, H] = [612, 792];
  const lead = o.size * 1.25;
  const gap = 18;
  const colW = (W - 144 - gap * (o.columns - 1)) / o.columns;
  const truth: Truth = { name: o.name, layout: o.layout, producer: 'pdf-lib', pages: [] };
  for (let n = 1; n <= o.pages; n++) {
    const page = doc.addPage([W, H]);
    const flows: string[] = [];
    let y = H - o.top;
    if (n === 1 && o.opening) {
      for (const [i, t] of o.opening.entries()) {
        const size = i === 0 ? o.size + 6 : o.size + 1;
        page.drawText(t, { x: 72, y, size, font: i === 0 ? bold : font });
        y -= size * 1.6;
        flows.push(t);
      }
      y -= lead;
    }
    const rows = Math.floor((y - o.bottom) / lead);
    for (let c = 0; c < o.columns; c++) {
      let r = 0;
      for (;;) {
        const para = p.para(50);
        const ls = breakLines(para, font, o.size, colW);
        if (r + ls.length > rows) break;
        for (const l of ls) page.drawText(l, { x: 72 + c * (colW + gap), y: y - r++ * lead, size: o.size, font });
        r++; // a blank line between paragraphs
        flows.push(para);
      }
    }
    const furniture = o.furniture(n);
    for (const f of furniture) {
      const w = font.widthOfTextAtSize(f.text, f.size);
      const x = f.align === 'left' ? 72 : f.align === 'right' ? W - 72 - w : (W - w) / 2;
      page.drawText(f.text, { x, y: f.from >= 0 ? H - f.from : -f.from, size: f.size, font });
    }
    truth.pages.push({ page: n, flows: [body(flows)], furniture: furniture.map((f) => f.text) });
  }
  return { pdf: await doc.save({ useObjectStreams: false }), truth };
}

/** The classes of short documents and journal heads: what a hidden set of real PDFs leaked on. */
function pagedDocs(): Parameters<typeof pagedDoc>[0][] {
  const head = (text: string, from: number, size: number, align: Furniture['align']): Furniture => ({ text, from, size, align });
  return [
    // A one-page memo: a letterhead line and the date above, an address and "Confidential" below.
    {
      name: 'short-memo',
      layout: '1 page, letterhead and footer',
      seed: 31,
      pages: 1,
      columns: 1,
      top: 110,
      bottom: 90,
      size: 11,
      opening: ['Memorandum on the quay works'],
      furniture: () => [
        head('Northwind Harbour Trust', 40, 9, 'left'),
        head('Wednesday 4 March 2026', 40, 9, 'right'),
        head('Northwind Harbour Trust, 12 Quay Street, Port Elwin', -40, 8, 'centre'),
        head('Confidential', -28, 8, 'centre'),
      ],
    },
    // Minutes of two pages: a header that differs on page 2 ("continued"), "Page N of 2" below.
    {
      name: 'short-minutes',
      layout: '2 pages, header and page count',
      seed: 32,
      pages: 2,
      columns: 1,
      top: 100,
      bottom: 80,
      size: 11,
      opening: ['Minutes of the orchard committee'],
      furniture: (n) => [
        head(n === 1 ? 'Orchard Valley Cooperative · Minutes' : 'Orchard Valley Cooperative · Minutes (continued)', 42, 9, 'left'),
        head(`Page ${n} of 2`, -36, 9, 'right'),
      ],
    },
    // A journal article set by LaTeX: running heads ~12% down the page (authors on even pages, the short
    // title on odd ones, the page number at the outer edge), none on page 1, which instead has the
    // journal's footer in small type; page numbers are in the heads.
    {
      name: 'journal-heads',
      layout: '1 column, running heads 12% down, first-page footer',
      seed: 33,
      pages: 5,
      columns: 1,
      top: 128,
      bottom: 96,
      size: 10,
      opening: ['Soil moisture under hedgerows', 'Quentin Arbuckle and Yolanda Fenwick'],
      furniture: (n) =>
        n === 1
          ? [
              head('Journal of Hedgerow Ecology 12 (2021) 301–318', 60, 8, 'left'),
              head('© 2021 Fenwick Press. doi:10.5555/jhe.2021.0301', -52, 7, 'left'),
              head('Received 3 May 2020; accepted 9 June 2020', -42, 7, 'left'),
            ]
          : n % 2 === 0
            ? [head(`${300 + n}    Q. Arbuckle, Y. Fenwick`, 95, 9, 'left')]
            : [head(`Hedgerow soil moisture    ${300 + n}`, 95, 9, 'right')],
    },
    // Two columns with the page number in the middle of the head, and the first-page footer.
    {
      name: 'journal-two-column',
      layout: '2 columns, centred heads with page numbers, first-page footer',
      seed: 34,
      pages: 4,
      columns: 2,
      top: 120,
      bottom: 90,
      size: 9,
      opening: ['Tidal patterns in the Elwin estuary'],
      furniture: (n) =>
        n === 1
          ? [
              head('Estuary Letters, Vol. 7, No. 2, pp. 44–51, 2019', 48, 8, 'left'),
              head('ISSN 1234-5678 · © Elwin Institute 2019. All rights reserved.', -40, 7, 'centre'),
            ]
          : [head(`Estuary Letters · ${43 + n} · Vol. 7`, 80, 8, 'centre')],
    },
  ];
}

/** The page's pdftotext text contains (nearly) every long word of each paragraph the truth puts there. */
function check(pdf: string, truth: Truth): void {
  const pages = execFileSync('pdftotext', [pdf, '-'], { encoding: 'utf8' }).split('\f');
  for (const tp of truth.pages) {
    const txt = (pages[tp.page - 1] ?? '').normalize('NFKC').replace(/-\n/g, '').toLowerCase();
    for (const f of tp.flows) {
      for (const para of f.paras) {
        const ws = para
          .toLowerCase()
          .split(/[^a-z]+/)
          .filter((w) => w.length > 6);
        const missing = ws.filter((w) => !txt.includes(w));
        if (missing.length > ws.length * 0.1)
          throw new Error(`${truth.name} page ${tp.page}: a ${f.kind} paragraph is not on its page (${missing.slice(0, 5).join(', ')})`);
      }
    }
  }
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'kb-layout-'));
  try {
    for (const d of docs()) {
      const tex = join(work, `${d.truth.name}.tex`);
      writeFileSync(tex, d.tex);
      // SOURCE_DATE_EPOCH and a fixed ID keep the PDF the same from run to run.
      execFileSync('pdflatex', ['-interaction=nonstopmode', '-halt-on-error', `-output-directory=${work}`, tex], {
        stdio: 'pipe',
        env: { ...process.env, SOURCE_DATE_EPOCH: '1700000000', FORCE_SOURCE_DATE: '1' },
      });
      const pdf = join(OUT, `${d.truth.name}.pdf`);
      writeFileSync(pdf, readFileSync(join(work, `${d.truth.name}.pdf`)));
      const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [pdf], { encoding: 'utf8' }))?.[1]);
      if (pages !== d.truth.pages.length) throw new Error(`${d.truth.name}: ${pages} pages typeset, ${d.truth.pages.length} planned`);
      check(pdf, d.truth);
      writeFileSync(join(OUT, `${d.truth.name}.json`), JSON.stringify(d.truth, null, 1) + '\n');
      console.log(`${d.truth.name}: ${pages} pages`);
    }
    for (const spec of pagedDocs()) {
      const d = await pagedDoc(spec);
      writeFileSync(join(OUT, `${spec.name}.pdf`), d.pdf);
      check(join(OUT, `${spec.name}.pdf`), d.truth);
      writeFileSync(join(OUT, `${spec.name}.json`), JSON.stringify(d.truth, null, 1) + '\n');
      console.log(`${spec.name}: ${spec.pages} pages`);
    }
    const il = await interleaved();
    writeFileSync(join(OUT, 'interleaved.pdf'), il.pdf);
    check(join(OUT, 'interleaved.pdf'), il.truth);
    writeFileSync(join(OUT, 'interleaved.json'), JSON.stringify(il.truth, null, 1) + '\n');
    console.log('interleaved: 3 pages');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) await main();
