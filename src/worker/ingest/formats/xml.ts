// XML parts of zipped documents (ODF, OOXML slides, EPUB packages) as DOM trees: linkedom in XML mode
// keeps prefixed names (`text:p`, `a:t`) as element names, which is all these readers match on.
import { DOMParser } from 'linkedom';
import { KbError } from '../../../shared/errors.js';

export interface XmlNode {
  nodeType: number;
  localName: string;
  textContent: string | null;
  childNodes: ArrayLike<XmlNode>;
  getAttribute(name: string): string | null;
  getElementsByTagName(name: string): ArrayLike<XmlNode>;
}

export function parseXml(xml: string, part: string): XmlNode {
  try {
    const doc = new DOMParser().parseFromString(xml, 'text/xml') as unknown as { documentElement: XmlNode | null };
    if (!doc.documentElement) throw new Error('no root element');
    return doc.documentElement;
  } catch (e) {
    throw new KbError('PARSE_FAILED', `damaged ${part}: ${(e as Error).message}`);
  }
}

export const elements = (n: XmlNode): XmlNode[] => Array.from(n.childNodes).filter((c) => c.nodeType === 1);
export const all = (n: XmlNode, name: string): XmlNode[] => Array.from(n.getElementsByTagName(name));
export const first = (n: XmlNode, name: string): XmlNode | null => n.getElementsByTagName(name)[0] ?? null;

/** Every element under n, in document order. */
export function descendants(n: XmlNode): XmlNode[] {
  const out: XmlNode[] = [];
  const walk = (x: XmlNode): void => {
    for (const c of elements(x)) {
      out.push(c);
      walk(c);
    }
  };
  walk(n);
  return out;
}
