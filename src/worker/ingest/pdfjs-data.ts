// What pdf.js needs besides its code, and finds only when told where: the CMaps of CJK text in fonts
// a PDF does not embed (without them such a page has no text at all), the standard fonts, the
// WebAssembly decoders of scanned images — CCITT fax, JBIG2, JPEG 2000, the usual compressions of a
// scan (without them the page renders blank) — and the colour profiles. The renderer gets the same
// folders copied beside it (scripts/pdfjs-assets.mjs); the package ships them inside app.asar.
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';

export interface PdfjsData {
  cMapUrl: string;
  cMapPacked: true;
  standardFontDataUrl: string;
  wasmUrl: string;
  iccUrl: string;
}

let data: PdfjsData | undefined;

/** getDocument's parameters naming the folders of pdfjs-dist, as paths (pdf.js in Node reads them with fs). */
export function pdfjsData(): PdfjsData {
  if (data) return data;
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  const folder = (name: string): string => join(root, name) + sep;
  data = {
    cMapUrl: folder('cmaps'),
    cMapPacked: true,
    standardFontDataUrl: folder('standard_fonts'),
    wasmUrl: folder('wasm'),
    iccUrl: folder('iccs'),
  };
  return data;
}
