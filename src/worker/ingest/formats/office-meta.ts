// Title, author, date and keywords from an Office file's docProps/core.xml or an ODF file's meta.xml.
import type JSZip from 'jszip';
import { zipText } from './zip.js';

export interface DocMeta {
  title: string | null;
  author: string | null;
  date: string | null;
  tags: string[];
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function xmlUnescape(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : all;
    }
    return ENTITIES[e] ?? all;
  });
}

/** The text of the first element with this qualified name (these files are small and flat). */
function element(xml: string, qname: string): string | null {
  const m = new RegExp(`<${qname}(?:\\s[^>]*)?>([\\s\\S]*?)</${qname}>`).exec(xml);
  const v = m ? xmlUnescape(m[1]!.replace(/<[^>]+>/g, '')).trim() : '';
  return v || null;
}

function keywords(raw: string | null): string[] {
  return raw
    ? raw
        .split(/[,;]+/)
        .map((t) => t.trim())
        .filter((t) => t.length > 0 && t.length <= 64)
    : [];
}

/** docx, pptx, xlsx. */
export async function ooxmlMeta(zip: JSZip): Promise<DocMeta> {
  const xml = (await zipText(zip, 'docProps/core.xml')) ?? '';
  return {
    title: element(xml, 'dc:title'),
    author: element(xml, 'dc:creator'),
    date: element(xml, 'dcterms:created') ?? element(xml, 'dcterms:modified'),
    tags: keywords(element(xml, 'cp:keywords')),
  };
}

/** odt, odp. */
export async function odfMeta(zip: JSZip): Promise<DocMeta> {
  const xml = (await zipText(zip, 'meta.xml')) ?? '';
  const kws = [...xml.matchAll(/<meta:keyword>([\s\S]*?)<\/meta:keyword>/g)].flatMap((m) => keywords(xmlUnescape(m[1]!)));
  return {
    title: element(xml, 'dc:title'),
    author: element(xml, 'dc:creator') ?? element(xml, 'meta:initial-creator'),
    date: element(xml, 'meta:creation-date') ?? element(xml, 'dc:date'),
    tags: kws,
  };
}
