// The structured formats by file name, and the one entry that reads any of them into blocks (for
// indexing on a parse thread, and for the viewer and `kb get` reading a span back). Each format's
// reader is loaded on first use.
import { basename } from 'node:path';
import { isKbError, KbError } from '../../../shared/errors.js';
import type { ChunkingOptions, ParsedDocument } from '../types.js';
import { detectLanguage } from '../language.js';
import { type BlockDoc, chunkBlocks } from './blocks.js';
import type { ZipLimits } from './zip.js';
import { type StructuredFormat, structuredFormat, typeOfFormat } from '../extensions.js';

export interface StructuredRequest {
  format: StructuredFormat;
  data: Uint8Array;
  name: string;
  chunking: ChunkingOptions;
  limits: ZipLimits;
}

/** The viewer's and `kb get`'s request: a document's blocks, with markup or without. */
export interface BlocksRequest {
  format: StructuredFormat;
  data: Uint8Array;
  limits: ZipLimits;
  markup: boolean;
}

/** Any structured file's blocks. `markup` keeps each block's HTML, which only the viewer needs. */
export async function readStructured(format: StructuredFormat, bytes: Uint8Array, limits: ZipLimits, markup: boolean): Promise<BlockDoc> {
  try {
    return await readFormat(format, bytes, limits, markup);
  } catch (e) {
    // A reader tripping over damaged bytes (a RangeError deep in a zip or XML library) is a damaged
    // file, not a fault of kb's: said as PARSE_FAILED with what the reader said.
    if (isKbError(e)) throw e;
    throw new KbError('PARSE_FAILED', `could not read it as ${format}: ${(e as Error).message ?? String(e)}`);
  }
}

async function readFormat(format: StructuredFormat, bytes: Uint8Array, limits: ZipLimits, markup: boolean): Promise<BlockDoc> {
  switch (format) {
    case 'docx':
      return (await import('./docx.js')).readDocx(bytes, limits, markup);
    case 'odt':
    case 'odp':
      return (await import('./odf.js')).readOdf(bytes, limits, format);
    case 'pptx':
      return (await import('./pptx.js')).readPptx(bytes, limits);
    case 'html':
      return (await import('./html.js')).readHtml(bytes, markup);
    case 'epub':
      return (await import('./epub.js')).readEpub(bytes, limits, markup);
    case 'csv':
    case 'tsv':
      return (await import('./csv.js')).readCsv(bytes, format);
    case 'xlsx':
      return (await import('./xlsx.js')).readXlsx(bytes, limits);
    case 'eml':
    case 'mbox':
      return (await import('./mail.js')).readMail(bytes, format, {
        formatOf: structuredFormat,
        // `f` is what formatOf (structuredFormat) returned for the attachment's name.
        read: async (f, b) => (await readStructured(f as StructuredFormat, b, limits, false)).blocks.map((x) => x.text),
      });
  }
}

/** A structured file → chunks, on a parse thread. */
export async function parseStructured(req: StructuredRequest): Promise<ParsedDocument> {
  const doc = await readStructured(req.format, req.data, req.limits, false);
  const chunks = chunkBlocks(doc, req.chunking);
  return {
    type: typeOfFormat(req.format),
    title: doc.title?.trim() || basename(req.name).replace(/\.[^.]+$/, ''),
    lang: detectLanguage(
      chunks
        .slice(0, 8)
        .map((c) => c.text)
        .join('\n')
        .slice(0, 4000),
    ),
    tags: doc.tags,
    chunks,
    author: doc.author,
    date: doc.date,
  };
}
