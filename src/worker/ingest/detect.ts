// What a file is: by extension first, then by its bytes. Decoding text lives here too, because
// "is this text?" and "which encoding?" are the same question.
import { basename, extname } from 'node:path';
import { fileTypeFromBuffer } from 'file-type';
import { KbError } from '../../shared/errors.js';
import type { DocType } from '../../shared/wire.js';
import { CODE_LANG_BY_EXT, CODE_LANG_BY_NAME } from './formats/code.js';
import { NOT_READ, readAsByName, type StructuredFormat, TEXT_FORMATS } from './extensions.js';

export type Detected =
  | { kind: 'text'; type: Extract<DocType, 'markdown' | 'note' | 'code'>; lang: string | null; ext: string }
  | { kind: 'pdf' }
  | { kind: 'image' }
  | { kind: 'audio' }
  | { kind: 'structured'; format: StructuredFormat }
  | { kind: 'skip'; reason: string };

/** Type by name alone; `null` means the content decides. */
function byName(path: string): Exclude<Detected, { kind: 'pdf' | 'image' | 'audio' | 'structured' }> | null {
  const ext = extname(path).toLowerCase();
  const as = readAsByName(path)?.type;
  if (as === 'markdown') return { kind: 'text', type: 'markdown', lang: null, ext };
  const lang = CODE_LANG_BY_NAME[basename(path)] ?? CODE_LANG_BY_EXT[ext];
  if (lang) return { kind: 'text', type: 'code', lang, ext };
  if (as === 'note') return { kind: 'text', type: 'note', lang: null, ext };
  return null;
}

/** `%PDF-` within the first KB (some writers put junk before it, which readers tolerate). */
function isPdf(head: Uint8Array): boolean {
  const n = Math.min(head.length, 1024);
  for (let i = 0; i + 5 <= n; i++) {
    if (head[i] === 0x25 && head[i + 1] === 0x50 && head[i + 2] === 0x44 && head[i + 3] === 0x46 && head[i + 4] === 0x2d) return true;
  }
  return false;
}

/** PNG, JPEG, GIF, BMP, WebP or TIFF by their magic bytes. */
function isImage(b: Uint8Array): boolean {
  const at = (i: number, ...bytes: number[]): boolean => bytes.every((x, j) => b[i + j] === x);
  return (
    at(0, 0x89, 0x50, 0x4e, 0x47) ||
    at(0, 0xff, 0xd8, 0xff) ||
    at(0, 0x47, 0x49, 0x46, 0x38) ||
    // BMP: 'BM' alone would catch text starting "BM…"; the DIB header size must be a real one.
    (at(0, 0x42, 0x4d) && [12, 40, 52, 56, 64, 108, 124].includes(b[14]! | (b[15]! << 8)) && b[16] === 0 && b[17] === 0) ||
    (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) ||
    at(0, 0x49, 0x49, 0x2a, 0x00) ||
    at(0, 0x4d, 0x4d, 0x00, 0x2a)
  );
}

async function notText(named: string, head: Uint8Array): Promise<KbError> {
  const ft = await fileTypeFromBuffer(head).catch(() => undefined);
  return new KbError('NOT_TEXT', `named like ${named} but contains ${ft ? ft.mime : 'binary data'}`);
}

function looksBinary(head: Uint8Array): boolean {
  // UTF-16 with its byte order mark (Excel's "Unicode text", Windows' Notepad) is text full of zeros.
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return false;
  const n = Math.min(head.length, 8192);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i]!;
    if (b === 0) return true;
    if (b < 7 || (b > 13 && b < 32 && b !== 27)) control++;
  }
  return n > 0 && control / n > 0.1;
}

/**
 * Decides what a file is from its name and its first bytes. A file whose name says text but whose
 * bytes are binary is an error (the user expects it indexed); an unknown binary is a skip.
 */
export async function detect(path: string, head: Uint8Array): Promise<Detected> {
  const ext = extname(path).toLowerCase();
  const as = readAsByName(path);
  // Word, slides, e-books, tables, web pages and mail go by their name: their readers judge the bytes
  // (a zip that is not one, an encrypted Office file) and say what is wrong.
  const format = as?.format;
  if (format) {
    if (head.length === 0) throw new KbError('EMPTY', 'the file is empty');
    if (TEXT_FORMATS.has(format) && looksBinary(head)) throw await notText(ext, head);
    return { kind: 'structured', format };
  }
  const unread = NOT_READ[ext];
  if (unread) return { kind: 'skip', reason: unread };
  const named = byName(path);
  // A name that says text is taken at its word (binary bytes are then an error, below). Otherwise a
  // PDF or an image is known by its first bytes, and one named so that is not one is an error.
  if (!named || named.kind === 'skip' || ext === '') {
    if (isPdf(head)) return { kind: 'pdf' };
    if (isImage(head)) return { kind: 'image' };
  }
  // Audio goes by its name: ffmpeg and the metadata reader judge the bytes (and say what is wrong).
  if (as?.type === 'audio') {
    if (head.length === 0) throw new KbError('EMPTY', 'the file is empty');
    return { kind: 'audio' };
  }
  if (as?.type === 'pdf' || as?.type === 'image') {
    if (head.length === 0) throw new KbError('EMPTY', 'the file is empty');
    if (ext === '.pdf') throw new KbError('PARSE_FAILED', 'named .pdf but is not a PDF (no %PDF- header)');
    throw new KbError('PARSE_FAILED', `named ${ext} but is not an image kb can read (PNG, JPEG, WebP, TIFF, BMP, GIF)`);
  }
  if (named?.kind === 'skip') return named;
  if (looksBinary(head)) {
    if (named) throw await notText(named.type, head);
    const ft = await fileTypeFromBuffer(head).catch(() => undefined);
    const what = ft ? `${ft.mime}` : 'binary data';
    return { kind: 'skip', reason: `binary file (${what}) is not a supported format` };
  }
  return named ?? { kind: 'text', type: 'note', lang: null, ext: extname(path).toLowerCase() };
}

export { decodeText } from './decode-text.js';
