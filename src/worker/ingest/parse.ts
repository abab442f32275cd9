// Text → ParsedDocument for every text format: the work a parse thread does (and the fallback when
// threads are unavailable). Pure CPU: no file or database access here.
import type { ChunkingOptions, ParsedDocument } from './types.js';
import { parseCode } from './formats/code.js';
import { detectLanguage } from './language.js';
import { parseMarkdown } from './formats/markdown.js';
import { parseNote } from './formats/text.js';

export interface ParseRequest {
  type: 'markdown' | 'note' | 'code';
  text: string;
  name: string;
  ext: string;
  lang: string | null;
  chunking: ChunkingOptions;
}

export async function parseText(r: ParseRequest): Promise<ParsedDocument> {
  let doc: ParsedDocument;
  switch (r.type) {
    case 'markdown':
      doc = parseMarkdown(r.text, r.name.replace(/\.[^.]+$/, ''), r.chunking);
      break;
    case 'code':
      doc = await parseCode(r.text, r.name, r.ext, r.lang ?? 'text', r.chunking);
      break;
    case 'note':
      doc = parseNote(r.text, r.name, r.chunking);
      break;
  }
  return { ...doc, lang: doc.lang ?? detectLanguage(r.text) };
}
