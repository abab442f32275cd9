// E-mail: one message (.eml) or a mailbox of them (.mbox). Each message is read by mailparser (MIME,
// encodings, quoted-printable, HTML-only mail made text); its subject is the section, its sender the
// author. An .eml's passages cite lines of its body text (`#L12-L18`); a mailbox's cite the message
// (`#msg=<Message-ID>`, its ordinal when it has none). Nothing in a message is run or fetched.
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc, BlockGroup, DocBlock } from './blocks.js';
import { domBlocks, htmlDocument } from './dom-blocks.js';
import { type AttachmentReader, attachmentBlocks, readAttachments, type ReadAttachment } from './mail-attachments.js';

const addresses = (a: AddressObject | AddressObject[] | undefined): string =>
  Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? '');

/** The body as text: the plain part, or the HTML part's blocks when the message has only HTML. */
export function bodyText(m: ParsedMail): string {
  if (m.text && m.text.trim()) return m.text.replace(/\r\n/g, '\n');
  if (typeof m.html === 'string' && m.html) {
    const { document } = htmlDocument(m.html);
    return document.body
      ? domBlocks(document.body)
          .map((b) => b.text)
          .join('\n\n')
      : '';
  }
  return '';
}

/** Messages of a mailbox: split at "From " lines that start a message (mboxrd, with >From unescaped). */
export function splitMbox(text: string): string[] {
  const out: string[] = [];
  const lines = text.split(/\r?\n/);
  let cur: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('From ') && (i === 0 || lines[i - 1] === '')) {
      if (cur) out.push(cur.join('\n'));
      cur = [];
      continue;
    }
    if (cur) cur.push(/^>+From /.test(l) ? l.slice(1) : l);
  }
  if (cur) out.push(cur.join('\n'));
  return out;
}

export interface MailMessage {
  id: string;
  subject: string;
  headers: [string, string][];
  body: string;
  attachments: ReadAttachment[];
  from: string;
  date: string | null;
}

async function readMessage(raw: Buffer | string, ordinal: number, attachments: AttachmentReader): Promise<MailMessage> {
  const m = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, skipHtmlToText: true });
  const from = addresses(m.from);
  const date = m.date && !Number.isNaN(m.date.getTime()) ? m.date.toISOString() : null;
  const headers: [string, string][] = [
    ['From', from],
    ['To', addresses(m.to)],
    ['Cc', addresses(m.cc)],
    ['Date', m.date && date ? m.date.toUTCString() : ''],
    ['Subject', m.subject ?? ''],
  ].filter((h): h is [string, string] => !!h[1]);
  return {
    id: m.messageId?.replace(/^<|>$/g, '') || String(ordinal),
    subject: m.subject?.trim() || '(no subject)',
    headers,
    body: bodyText(m),
    attachments: await readAttachments(m.attachments, attachments),
    from,
    date,
  };
}

/** Paragraphs of a body as blocks citing their lines (1-based, of the body text). */
function lineBlocks(body: string, group: number): DocBlock[] {
  const out: DocBlock[] = [];
  const lines = body.split('\n');
  let start = -1;
  for (let i = 0; i <= lines.length; i++) {
    const blank = i === lines.length || lines[i]!.trim() === '';
    if (!blank && start < 0) start = i;
    if (blank && start >= 0) {
      out.push({ text: lines.slice(start, i).join('\n'), html: '', unit: start + 1, end: i, group });
      start = -1;
    }
  }
  return out;
}

export async function readMessages(bytes: Uint8Array, format: 'eml' | 'mbox', attachments: AttachmentReader): Promise<MailMessage[]> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (format === 'eml') return [await readMessage(buf, 1, attachments)];
  const raws = splitMbox(buf.toString('latin1'));
  if (raws.length === 0) throw new KbError('PARSE_FAILED', 'not a mailbox: no message starts with a "From " line');
  const out: MailMessage[] = [];
  // latin1 keeps every byte as it was: mailparser decodes each part by its own charset.
  for (const [i, raw] of raws.entries()) out.push(await readMessage(Buffer.from(raw, 'latin1'), i + 1, attachments));
  return out;
}

/** A message or a mailbox; `attachments` reads what is attached in the formats kb reads. */
export async function readMail(bytes: Uint8Array, format: 'eml' | 'mbox', attachments: AttachmentReader): Promise<BlockDoc> {
  let messages: MailMessage[];
  try {
    messages = await readMessages(bytes, format, attachments);
  } catch (e) {
    if (e instanceof KbError) throw e;
    throw new KbError('PARSE_FAILED', `not a readable message: ${(e as Error).message}`);
  }
  const blocks: DocBlock[] = [];
  const groups: BlockGroup[] = [];
  for (const [g, m] of messages.entries()) {
    // Every chunk of a message carries who sent it, to whom and when: found by sender, read in context.
    const preamble = m.headers.map(([k, v]) => `${k}: ${v}`).join('\n');
    groups.push({ name: m.subject, key: m.id, headers: m.headers, preamble });
    const body = lineBlocks(m.body, g).map((b) => (format === 'mbox' ? { ...b, unit: g + 1 } : b));
    // A message with no body text keeps one empty block, so it has a place (and a chunk of its headers).
    blocks.push(...(body.length > 0 ? body : [{ text: '', html: '', unit: g + 1, group: g }]));
    blocks.push(...attachmentBlocks(m.attachments, g, body.at(-1)?.unit ?? g + 1, { kind: 'msg', id: m.id }));
  }
  const one = messages.length === 1 ? messages[0]! : null;
  return {
    title: one ? one.subject : null,
    author: one ? one.from || null : null,
    date: one ? one.date : null,
    tags: [],
    blocks,
    groups,
    cite: format === 'eml' ? 'lines' : 'msg',
  };
}
