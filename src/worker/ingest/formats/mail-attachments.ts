// A message's attachments of kinds kb reads (Word, slides, sheets, books, web pages, text) become
// part of the message: found by their words, cited as the message that carries them (`#msg=<id>`),
// shown under it. A mail inside a mail is not opened (one level, bounded), nor is anything too big.
import { extname } from 'node:path';
import type { Attachment } from 'mailparser';
import { toErrorPayload } from '../../../shared/errors.js';
import { decodeText } from '../decode-text.js';
import type { Anchor } from '../../../shared/anchors.js';
import type { DocBlock } from './blocks.js';
import { formatBytes } from '../../../shared/bytes.js';

/** Attachments above this size are listed, not read. */
const MAX_ATTACHMENT = 20 * 1024 * 1024;
const MAX_PER_MESSAGE = 20;
const TEXT_EXT = new Set(['.txt', '.md', '.markdown', '.text', '.log', '.rst', '.org']);

export interface ReadAttachment {
  name: string;
  /** Its text as paragraphs; empty when it was not read (see note). */
  paragraphs: string[];
  note: string | null;
}

/**
 * How an attachment in a format kb reads is read: the structured readers (structured.ts), handed in by
 * the one that reads the mail — a message may hold any of them, and they do not import mail back.
 */
export interface AttachmentReader {
  /** The attachment's format by its name, or null when kb does not read it as a structured document. */
  formatOf(name: string): string | null;
  /** Its text, paragraph by paragraph. */
  read(format: string, bytes: Uint8Array): Promise<string[]>;
}

export async function readAttachments(atts: Attachment[], reader: AttachmentReader): Promise<ReadAttachment[]> {
  const out: ReadAttachment[] = [];
  for (const a of atts.slice(0, MAX_PER_MESSAGE)) {
    const name = a.filename ?? `attachment (${a.contentType})`;
    const format = a.filename ? reader.formatOf(a.filename) : null;
    const isText = (a.filename && TEXT_EXT.has(extname(a.filename).toLowerCase())) || a.contentType === 'text/plain';
    if ((!format && !isText) || format === 'eml' || format === 'mbox') continue;
    if (a.size > MAX_ATTACHMENT) {
      out.push({ name, paragraphs: [], note: `not read: ${formatBytes(a.size)}` });
      continue;
    }
    try {
      const paragraphs = format
        ? (await reader.read(format, a.content)).filter((t) => t.trim())
        : decodeText(a.content)
            .text.split(/\n\s*\n/)
            .map((p) => p.trim())
            .filter((p) => p);
      out.push({ name, paragraphs, note: null });
    } catch (e) {
      out.push({ name, paragraphs: [], note: `could not be read: ${toErrorPayload(e).message}` });
    }
  }
  return out;
}

/** Blocks for a message's attachments: a heading per attachment, its paragraphs, all citing the message. */
export function attachmentBlocks(atts: ReadAttachment[], group: number, unit: number, cite: Anchor): DocBlock[] {
  const out: DocBlock[] = [];
  for (const a of atts) {
    out.push({ text: `Attachment: ${a.name}${a.note ? ` (${a.note})` : ''}`, html: '', unit, group, heading: 2, anchor: cite });
    for (const p of a.paragraphs) out.push({ text: p, html: '', unit, group, anchor: cite });
  }
  return out;
}
