// Word documents (.docx, .docm, .dotx): mammoth turns the body into HTML (macros are never run: they
// are a binary part mammoth does not read), and every body paragraph, list item and table becomes a
// block numbered as Word counts them, so `#para=12-18` names the same paragraphs in Word and in kb.
import mammoth from 'mammoth';
import { KbError } from '../../../shared/errors.js';
import type { BlockDoc } from './blocks.js';
import { domBlocks, htmlDocument, numbered } from './dom-blocks.js';
import { ooxmlMeta } from './office-meta.js';
import { openZip, type ZipLimits } from './zip.js';

/** Images above this size are left out of the viewer's rendition (they are not searchable anyway). */
const MAX_INLINE_IMAGE = 2 * 1024 * 1024;

export async function readDocx(bytes: Uint8Array, limits: ZipLimits, markup: boolean): Promise<BlockDoc> {
  const zip = await openZip(bytes, limits, 'a Word document');
  if (!zip.file('word/document.xml')) throw new KbError('PARSE_FAILED', 'not a Word document (no word/document.xml inside)');
  const meta = await ooxmlMeta(zip);
  const convertImage = mammoth.images.imgElement(async (img) => {
    if (!markup) return { src: '' };
    const data = await img.readAsBase64String();
    return { src: data.length * 0.75 <= MAX_INLINE_IMAGE ? `data:${img.contentType};base64,${data}` : '' };
  });
  let html: string;
  try {
    ({ value: html } = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      { ignoreEmptyParagraphs: false, externalFileAccess: false, convertImage },
    ));
  } catch (e) {
    throw new KbError('PARSE_FAILED', `could not read the Word document: ${(e as Error).message}`);
  }
  const { document } = htmlDocument(`<!doctype html><html><head></head><body>${html}</body></html>`);
  // mammoth links each footnote back to its reference with a ↑: not words of the document.
  for (const a of Array.from(document.querySelectorAll('a[href^="#footnote-ref-"], a[href^="#endnote-ref-"], a[href^="#comment-ref-"]'))) {
    (a as unknown as { remove(): void }).remove();
  }
  const blocks = document.body ? domBlocks(document.body, { keepEmpty: true, markup }) : [];
  const firstHeading = blocks.find((b) => b.heading !== undefined && b.text)?.text ?? null;
  return {
    title: meta.title ?? firstHeading,
    author: meta.author,
    date: meta.date,
    tags: meta.tags,
    blocks: numbered(blocks),
    groups: [{ name: '' }],
    cite: 'para',
  };
}
