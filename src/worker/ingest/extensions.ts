// Every file name kb reads by its extension, and what it reads it as: the one place an extension is
// added. (Source code goes by formats/code.ts's table of languages, which its grammars decide.)
import { extname } from 'node:path';
import type { DocType } from '../../shared/doc-types.js';

/** The structured formats: each one reader (formats/structured.ts), read into blocks. */
export const STRUCTURED_FORMATS = ['docx', 'odt', 'pptx', 'odp', 'html', 'epub', 'csv', 'tsv', 'xlsx', 'eml', 'mbox'] as const;
export type StructuredFormat = (typeof STRUCTURED_FORMATS)[number];

/** What a file is read as: a document type, and for a structured file which reader reads it. */
export type ReadAs =
  | { type: Extract<DocType, 'markdown' | 'note' | 'pdf' | 'image' | 'audio'>; format?: undefined }
  | { type: DocType; format: StructuredFormat };

const readAs = (type: Extract<DocType, 'markdown' | 'note' | 'pdf' | 'image' | 'audio'>, exts: string[]): [string, ReadAs][] =>
  exts.map((e) => [e, { type }]);
const structured = (format: StructuredFormat, type: DocType, exts: string[]): [string, ReadAs][] => exts.map((e) => [e, { type, format }]);

const BY_EXT = new Map<string, ReadAs>([
  ...readAs('markdown', ['.md', '.markdown', '.mdown', '.mkd', '.mdx']),
  // A file with no extension at all is read as a note (README, LICENSE, …).
  ...readAs('note', ['.txt', '.text', '.org', '.rst', '.adoc', '.log', '']),
  ...readAs('pdf', ['.pdf']),
  ...readAs('image', ['.png', '.jpg', '.jpeg', '.webp', '.tiff', '.tif', '.bmp', '.gif']),
  // Audio, and video whose sound is transcribed (ffmpeg decodes them).
  ...readAs('audio', ['.mp3', '.wav', '.ogg', '.oga', '.opus', '.m4a', '.aac', '.flac', '.mp4', '.m4v', '.mkv', '.webm', '.mov']),
  ...structured('docx', 'docx', ['.docx', '.docm', '.dotx', '.dotm']),
  ...structured('odt', 'docx', ['.odt', '.ott']),
  ...structured('pptx', 'slides', ['.pptx', '.pptm', '.ppsx', '.potx']),
  ...structured('odp', 'slides', ['.odp', '.otp']),
  ...structured('html', 'html', ['.html', '.htm', '.xhtml', '.shtml']),
  ...structured('epub', 'epub', ['.epub']),
  ...structured('csv', 'sheet', ['.csv']),
  ...structured('tsv', 'sheet', ['.tsv', '.tab']),
  ...structured('xlsx', 'sheet', ['.xlsx', '.xlsm']),
  ...structured('eml', 'mail', ['.eml']),
  ...structured('mbox', 'mail', ['.mbox', '.mbx']),
]);

/** Structured formats whose files are text: binary bytes in one are an error (NOT_TEXT), never a page of mojibake. */
export const TEXT_FORMATS: ReadonlySet<StructuredFormat> = new Set<StructuredFormat>(['html', 'csv', 'tsv', 'eml', 'mbox']);

/** The extensions each document type is read from, without their dot: what the installers offer to open (packaging/). */
export function extensionsByType(): Map<DocType, string[]> {
  const out = new Map<DocType, string[]>();
  for (const [ext, r] of BY_EXT) if (ext) out.set(r.type, [...(out.get(r.type) ?? []), ext.slice(1)]);
  return out;
}

/** Formats kb does not read, with what to do instead (a skip that says why, not "binary data"). */
export const NOT_READ: Readonly<Record<string, string>> = {
  '.doc': 'an old binary Word document (.doc): kb reads .docx and .odt — save it in one of those',
  '.xls': 'an old binary Excel workbook (.xls): kb reads .xlsx and .csv — save it in one of those',
  '.ppt': 'an old binary PowerPoint deck (.ppt): kb reads .pptx and .odp — save it in one of those',
  '.rtf': 'an RTF document: kb reads .docx and .odt — save it in one of those',
  '.ods': 'an OpenDocument spreadsheet: kb reads .xlsx and .csv — save it in one of those',
  '.pages': 'a Pages document: export it as .docx',
  '.numbers': 'a Numbers spreadsheet: export it as .xlsx or .csv',
  '.msg': 'an Outlook .msg message: save it as .eml',
  '.mobi': 'a Kindle book (.mobi): kb reads .epub',
  '.azw3': 'a Kindle book (.azw3): kb reads .epub',
};

/** What a file's extension says it is, or null when only its bytes can tell. */
export function readAsByName(path: string): ReadAs | null {
  return BY_EXT.get(extname(path).toLowerCase()) ?? null;
}

export function structuredFormat(path: string): StructuredFormat | null {
  return readAsByName(path)?.format ?? null;
}

/** The document type a structured format's files have. */
export function typeOfFormat(format: StructuredFormat): DocType {
  for (const r of BY_EXT.values()) if (r.format === format) return r.type;
  throw new Error(`no extension is read as ${format}`);
}
