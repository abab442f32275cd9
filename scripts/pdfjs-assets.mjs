// pdf.js decodes JBIG2, CCITT fax and JPEG 2000 images with WebAssembly, draws the 14 standard fonts
// from font files, and reads CJK text through CMaps: none of that is in its JS bundle. This Vite
// plugin copies those folders beside the built renderer (pdfjs/wasm, …), where PdfView points pdf.js.
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const FOLDERS = ['wasm', 'standard_fonts', 'cmaps', 'iccs'];

/** @returns {import('vite').Plugin} */
export function pdfjsAssets() {
  const root = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
  let outDir = '';
  return {
    name: 'kb-pdfjs-assets',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir); // outDir is relative to the renderer's root
    },
    writeBundle() {
      for (const f of FOLDERS) cpSync(join(root, f), join(outDir, 'pdfjs', f), { recursive: true });
    },
  };
}
