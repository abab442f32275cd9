// The kinds of document kb indexes: one row each, the one place a type is named. The wire's DocType,
// the app's and kb tui's type filter, and the word index's type filter all read this table.
// Plain TypeScript, no zod: the renderer bundles it too.

export const DOC_TYPE_TABLE = [
  // `token`: the number of its filter term in the word index (kbtype<n>), written by the chunk
  // triggers of the newest migration — a test holds that SQL against this table.
  { id: 'markdown', label: 'Markdown', kind: 'text', token: 1 },
  { id: 'note', label: 'notes', kind: 'text', token: 2 },
  { id: 'code', label: 'code', kind: 'text', token: 3 },
  { id: 'pdf', label: 'PDF', kind: 'pdf', token: 4 },
  { id: 'image', label: 'images', kind: 'image', token: 5 },
  { id: 'audio', label: 'audio & video', kind: 'audio', token: 6 },
  /** Word-processor documents: .docx, .odt. */
  { id: 'docx', label: 'Word & ODT', kind: 'structured', token: 7 },
  /** Saved web pages. */
  { id: 'html', label: 'web pages', kind: 'structured', token: 8 },
  { id: 'epub', label: 'e-books', kind: 'structured', token: 9 },
  /** .pptx, .odp. */
  { id: 'slides', label: 'slides', kind: 'structured', token: 10 },
  /** .csv, .tsv, .xlsx. */
  { id: 'sheet', label: 'spreadsheets', kind: 'structured', token: 11 },
  /** .eml, .mbox. */
  { id: 'mail', label: 'mail', kind: 'structured', token: 12 },
] as const;

export type DocTypeRow = (typeof DOC_TYPE_TABLE)[number];
export type DocType = DocTypeRow['id'];
/** How kb reads a type: plain text, a PDF, pixels, sound, or a structured file read into blocks. */
export type DocKind = DocTypeRow['kind'];

/** The type ids in the table's order. */
export const DOC_TYPES = DOC_TYPE_TABLE.map((t) => t.id) as [DocType, ...DocType[]];

const BY_ID = new Map<string, DocTypeRow>(DOC_TYPE_TABLE.map((t) => [t.id, t]));

export function docType(id: DocType): DocTypeRow {
  return BY_ID.get(id)!;
}

/** Word, slides, sheets, web pages, e-books and mail: read into blocks, viewed through a rendition. */
export function isStructured(id: DocType): boolean {
  return docType(id).kind === 'structured';
}
