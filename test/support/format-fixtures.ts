// Documents of every structured format kb reads, written from scratch with known text at known places:
// Word (.docx), OpenDocument (.odt, .odp), PowerPoint (.pptx), EPUB, Excel (.xlsx), CSV, HTML, e-mail.
// No office suite or pandoc exists on the build machines; these are the formats' own zips of XML,
// made as their writers make them, small enough to read by eye. Used by the tests, the Chromium
// tests, the screenshots and `npm run bench -- formats`.
import ExcelJS from 'exceljs';
import JSZip from 'jszip';

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const zipped = (zip: JSZip): Promise<Uint8Array> =>
  zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', mimeType: 'application/zip' });

export interface Para {
  text: string;
  /** 1–6: a heading. */
  heading?: number;
  /** A table of rows of cells instead of a paragraph. */
  table?: string[][];
}

export interface DocMetaIn {
  title?: string;
  author?: string;
  keywords?: string[];
}

const CORE = (m: DocMetaIn): string => `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
${m.title ? `<dc:title>${esc(m.title)}</dc:title>` : ''}${m.author ? `<dc:creator>${esc(m.author)}</dc:creator>` : ''}${m.keywords ? `<cp:keywords>${esc(m.keywords.join(', '))}</cp:keywords>` : ''}
<dcterms:created xsi:type="dcterms:W3CDTF">2024-03-05T10:00:00Z</dcterms:created></cp:coreProperties>`;

const RELS = (rels: [id: string, type: string, target: string][]): string =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels
    .map(([id, type, target]) => `<Relationship Id="${id}" Type="${type}" Target="${target}"/>`)
    .join('')}</Relationships>`;
const OFFICE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A Word document: one w:p per paragraph (headings by the built-in Heading N styles), w:tbl per table. */
export async function docx(paras: Para[], meta: DocMetaIn = {}): Promise<Uint8Array> {
  const run = (t: string): string => `<w:r><w:t xml:space="preserve">${esc(t)}</w:t></w:r>`;
  const body = paras
    .map((p) => {
      if (p.table)
        return `<w:tbl>${p.table.map((r) => `<w:tr>${r.map((c) => `<w:tc><w:p>${run(c)}</w:p></w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`;
      const style = p.heading ? `<w:pPr><w:pStyle w:val="Heading${p.heading}"/></w:pPr>` : '';
      return `<w:p>${style}${p.text ? run(p.text) : ''}</w:p>`;
    })
    .join('');
  const styles = [1, 2, 3]
    .map((n) => `<w:style w:type="paragraph" w:styleId="Heading${n}"><w:name w:val="heading ${n}"/></w:style>`)
    .join('');
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    RELS([
      ['rId1', `${OFFICE_REL}/officeDocument`, 'word/document.xml'],
      ['rId2', 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties', 'docProps/core.xml'],
    ]),
  );
  zip.file('word/_rels/document.xml.rels', RELS([['rId1', `${OFFICE_REL}/styles`, 'styles.xml']]));
  zip.file(
    'word/styles.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">${styles}</w:styles>`,
  );
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}<w:sectPr/></w:body></w:document>`,
  );
  zip.file('docProps/core.xml', CORE(meta));
  return zipped(zip);
}

export interface Slide {
  title: string;
  body: string[];
  notes?: string;
}

/** A PowerPoint deck: a title placeholder and a body shape per slide, speaker notes on a notes slide. */
export async function pptx(slides: Slide[], meta: DocMetaIn = {}): Promise<Uint8Array> {
  const A =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const sp = (ph: string | null, lines: string[]): string =>
    `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${ph ? `<p:ph type="${ph}"/>` : ''}</p:nvPr></p:nvSpPr><p:txBody>${lines.map((l) => `<a:p><a:r><a:t>${esc(l)}</a:t></a:r></a:p>`).join('')}</p:txBody></p:sp>`;
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>`,
  );
  zip.file('_rels/.rels', RELS([['rId1', `${OFFICE_REL}/officeDocument`, 'ppt/presentation.xml']]));
  zip.file('docProps/core.xml', CORE(meta));
  zip.file(
    'ppt/presentation.xml',
    `<?xml version="1.0"?><p:presentation ${A}><p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join('')}</p:sldIdLst></p:presentation>`,
  );
  zip.file(
    'ppt/_rels/presentation.xml.rels',
    RELS(slides.map((_, i) => [`rId${i + 1}`, `${OFFICE_REL}/slide`, `slides/slide${i + 1}.xml`])),
  );
  slides.forEach((s, i) => {
    zip.file(
      `ppt/slides/slide${i + 1}.xml`,
      `<?xml version="1.0"?><p:sld ${A}><p:cSld><p:spTree>${sp('title', [s.title])}${sp(null, s.body)}${sp('sldNum', [String(i + 1)])}</p:spTree></p:cSld></p:sld>`,
    );
    if (s.notes) {
      zip.file(
        `ppt/slides/_rels/slide${i + 1}.xml.rels`,
        RELS([['rId1', `${OFFICE_REL}/notesSlide`, `../notesSlides/notesSlide${i + 1}.xml`]]),
      );
      zip.file(
        `ppt/notesSlides/notesSlide${i + 1}.xml`,
        `<?xml version="1.0"?><p:notes ${A}><p:cSld><p:spTree>${sp('sldImg', [])}${sp('body', [s.notes])}</p:spTree></p:cSld></p:notes>`,
      );
    }
  });
  return zipped(zip);
}

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"';

function odfZip(mime: string, content: string, meta: DocMetaIn, encrypted = false): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('mimetype', mime, { compression: 'STORE' });
  zip.file(
    'content.xml',
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NS}><office:body>${content}</office:body></office:document-content>`,
  );
  zip.file(
    'meta.xml',
    `<?xml version="1.0" encoding="UTF-8"?><office:document-meta ${ODF_NS}><office:meta>${meta.title ? `<dc:title>${esc(meta.title)}</dc:title>` : ''}${meta.author ? `<dc:creator>${esc(meta.author)}</dc:creator>` : ''}${(meta.keywords ?? []).map((k) => `<meta:keyword>${esc(k)}</meta:keyword>`).join('')}</office:meta></office:document-meta>`,
  );
  zip.file(
    'META-INF/manifest.xml',
    `<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml">${encrypted ? '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/>' : ''}</manifest:file-entry></manifest:manifest>`,
  );
  return zipped(zip);
}

/** An OpenDocument text: text:h for headings, text:p for paragraphs, table:table for tables. */
export function odt(paras: Para[], meta: DocMetaIn = {}, opts: { encrypted?: boolean } = {}): Promise<Uint8Array> {
  const body = paras
    .map((p) =>
      p.table
        ? `<table:table>${p.table.map((r) => `<table:table-row>${r.map((c) => `<table:table-cell><text:p>${esc(c)}</text:p></table:table-cell>`).join('')}</table:table-row>`).join('')}</table:table>`
        : p.heading
          ? `<text:h text:outline-level="${p.heading}">${esc(p.text)}</text:h>`
          : `<text:p>${esc(p.text)}</text:p>`,
    )
    .join('');
  return odfZip('application/vnd.oasis.opendocument.text', `<office:text>${body}</office:text>`, meta, opts.encrypted);
}

/** An OpenDocument presentation: a draw:page per slide, title frame, body frame, notes. */
export function odp(slides: Slide[], meta: DocMetaIn = {}): Promise<Uint8Array> {
  const frame = (cls: string, lines: string[]): string =>
    `<draw:frame presentation:class="${cls}"><draw:text-box>${lines.map((l) => `<text:p>${esc(l)}</text:p>`).join('')}</draw:text-box></draw:frame>`;
  const pages = slides
    .map(
      (s, i) =>
        `<draw:page draw:name="page${i + 1}">${frame('title', [s.title])}${frame('outline', s.body)}${s.notes ? `<presentation:notes>${frame('notes', [s.notes])}</presentation:notes>` : ''}</draw:page>`,
    )
    .join('');
  return odfZip('application/vnd.oasis.opendocument.presentation', `<office:presentation>${pages}</office:presentation>`, meta);
}

export interface Chapter {
  title: string;
  paras: string[];
}

/** An EPUB 3 book: OPF package, nav document, one XHTML file per chapter (h1 + paragraphs). */
export async function epub(chapters: Chapter[], meta: DocMetaIn & { subjects?: string[] } = {}): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('mimetype', 'application/epub+zip', { compression: 'STORE' });
  zip.file(
    'META-INF/container.xml',
    `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`,
  );
  const items = chapters.map((_, i) => `<item id="ch${i + 1}" href="text/ch${i + 1}.xhtml" media-type="application/xhtml+xml"/>`).join('');
  zip.file(
    'OEBPS/content.opf',
    `<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:kb:test</dc:identifier><dc:title>${esc(meta.title ?? 'Untitled')}</dc:title>${meta.author ? `<dc:creator>${esc(meta.author)}</dc:creator>` : ''}<dc:date>2021-06-01</dc:date>${(meta.subjects ?? []).map((s) => `<dc:subject>${esc(s)}</dc:subject>`).join('')}<dc:language>en</dc:language></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>${items}</manifest><spine>${chapters.map((_, i) => `<itemref idref="ch${i + 1}"/>`).join('')}</spine></package>`,
  );
  zip.file(
    'OEBPS/nav.xhtml',
    `<?xml version="1.0" encoding="UTF-8"?><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Contents</title></head><body><nav epub:type="toc"><ol>${chapters.map((c, i) => `<li><a href="text/ch${i + 1}.xhtml">${esc(c.title)}</a></li>`).join('')}</ol></nav></body></html>`,
  );
  chapters.forEach((c, i) =>
    zip.file(
      `OEBPS/text/ch${i + 1}.xhtml`,
      `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${esc(c.title)}</title></head><body><section><h1>${esc(c.title)}</h1>${c.paras.map((p) => `<p>${esc(p)}</p>`).join('')}</section></body></html>`,
    ),
  );
  return zipped(zip);
}

/** An Excel workbook: each sheet's first row is its header. */
export async function xlsx(sheets: { name: string; rows: (string | number)[][] }[], meta: DocMetaIn = {}): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook();
  if (meta.author) wb.creator = meta.author;
  if (meta.title) wb.title = meta.title;
  if (meta.keywords) wb.keywords = meta.keywords.join(', ');
  for (const s of sheets) wb.addWorksheet(s.name).addRows(s.rows);
  return new Uint8Array(await wb.xlsx.writeBuffer());
}

/** A saved web page: navigation, an article with headings, a footer, and (when asked) hostile parts. */
export function html(o: { title: string; sections: { heading: string; paras: string[] }[]; hostile?: boolean }): string {
  const hostile = o.hostile
    ? `<script>document.title='pwned';window.parent.postMessage('script ran','*')</script><img src="x" onerror="window.parent.postMessage('onerror ran','*')"><img src="http://127.0.0.1:9/remote.png" alt="">`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(o.title)}</title><meta name="author" content="Ada Lovelace"><meta name="keywords" content="engines, notes"></head>
<body><nav><a href="/">Home</a> · <a href="/about">About</a> · <a href="/shop">Shop the sale</a></nav>
<article><h1>${esc(o.title)}</h1>${hostile}
${o.sections.map((s) => `<h2>${esc(s.heading)}</h2>${s.paras.map((p) => `<p>${esc(p)}</p>`).join('\n')}`).join('\n')}
</article><footer>Copyright footer text · Subscribe to our newsletter</footer></body></html>`;
}

/** One RFC 5322 message (attachments base64-encoded in a multipart/mixed). */
export function eml(o: {
  from: string;
  to: string;
  subject: string;
  date: string;
  id: string;
  body: string;
  html?: string;
  attachments?: { name: string; type: string; content: Uint8Array }[];
}): string {
  const head = `From: ${o.from}\r\nTo: ${o.to}\r\nSubject: ${o.subject}\r\nDate: ${o.date}\r\nMessage-ID: <${o.id}>\r\nMIME-Version: 1.0\r\n`;
  if (o.attachments?.length) {
    const parts = o.attachments
      .map(
        (a) =>
          `--m1\r\nContent-Type: ${a.type}; name="${a.name}"\r\nContent-Disposition: attachment; filename="${a.name}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(a.content).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`,
      )
      .join('');
    return `${head}Content-Type: multipart/mixed; boundary="m1"\r\n\r\n--m1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${o.body.replace(/\n/g, '\r\n')}\r\n${parts}--m1--\r\n`;
  }
  if (!o.html) return `${head}Content-Type: text/plain; charset=utf-8\r\n\r\n${o.body.replace(/\n/g, '\r\n')}\r\n`;
  return `${head}Content-Type: multipart/alternative; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${o.body.replace(/\n/g, '\r\n')}\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${o.html}\r\n--b1--\r\n`;
}

/** A mailbox (mboxrd) of messages. */
export function mbox(messages: string[]): string {
  return messages
    .map((m) => `From sender@example.com Thu Jan  1 00:00:00 2024\n${m.replace(/\r\n/g, '\n').replace(/^(>*From )/gm, '>$1')}\n`)
    .join('\n');
}

/** Filler prose: n sentences that share no rare words with the known phrases the tests look for. */
export function filler(n: number, seed = 1): string {
  const words = [
    'the',
    'system',
    'report',
    'shows',
    'steady',
    'growth',
    'across',
    'regions',
    'while',
    'costs',
    'remain',
    'stable',
    'and',
    'teams',
    'plan',
    'further',
    'work',
    'next',
    'quarter',
    'on',
    'delivery',
  ];
  let x = seed;
  const out: string[] = [];
  for (let s = 0; s < n; s++) {
    const len = 10 + (s % 7);
    const w: string[] = [];
    for (let i = 0; i < len; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      w.push(words[x % words.length]!);
    }
    out.push(w.join(' ').replace(/^./, (c) => c.toUpperCase()) + '.');
  }
  return out.join(' ');
}
