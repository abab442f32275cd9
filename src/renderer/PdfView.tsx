// A PDF opened at the cited page (pdf.js, loaded only when a PDF hit is opened), with the chunk's
// text highlighted on the rendered page: its words are found in the page's text layer.
import { useEffect, useRef, useState } from 'react';
import type * as PdfJsModule from 'pdfjs-dist';
import 'pdfjs-dist/web/pdf_viewer.css';
import { spansToMark } from './lib/pdf-highlight';

type PdfJs = typeof PdfJsModule;
type PdfDoc = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
let pdfjsP: Promise<PdfJs> | null = null;

/**
 * pdf.js and its worker, loaded once. The worker is started here and shared by every document
 * (workerPort), so opening a PDF never waits for a worker to boot.
 */
function pdfjs(): Promise<PdfJs> {
  pdfjsP ??= import('pdfjs-dist').then((lib) => {
    const src = new URL('pdfjs-dist/build/pdf.worker.min.mjs', import.meta.url).toString();
    lib.GlobalWorkerOptions.workerPort = new Worker(src, { type: 'module' });
    return lib;
  });
  return pdfjsP;
}

/** Loads pdf.js while the user is still typing, so the first PDF hit opens at once. */
export function preloadPdf(): void {
  const idle =
    (window as { requestIdleCallback?: (cb: () => void) => number }).requestIdleCallback ?? ((cb: () => void) => setTimeout(cb, 200));
  idle(() => void pdfjs());
}

/** After an ingest a document's bytes may have changed: open them afresh. */
export function forgetPdfs(): void {
  for (const d of docs.values()) void d.task.destroy();
  docs.clear();
}

/** The last few opened documents, so moving between hits in one PDF does not fetch and parse it again. */
type Loading = ReturnType<PdfJs['getDocument']>;
const docs = new Map<string, { task: Loading; doc: Promise<PdfDoc> }>();
function openDoc(lib: PdfJs, url: string): Promise<PdfDoc> {
  const have = docs.get(url);
  if (have) {
    docs.delete(url);
    docs.set(url, have);
    return have.doc;
  }
  // Range requests: a large PDF's page shows after fetching its part of the file, not all of it. The
  // decoders of scanned images (JBIG2, CCITT, JPEG 2000), the standard fonts and CJK CMaps are shipped
  // beside the renderer (scripts/pdfjs-assets.mjs).
  const assets = (dir: string): string => new URL(`pdfjs/${dir}/`, document.baseURI).href;
  const task = lib.getDocument({
    url,
    disableAutoFetch: true,
    disableStream: true,
    wasmUrl: assets('wasm'),
    standardFontDataUrl: assets('standard_fonts'),
    cMapUrl: assets('cmaps'),
    cMapPacked: true,
    iccUrl: assets('iccs'),
  });
  task.promise.catch(() => docs.delete(url));
  docs.set(url, { task, doc: task.promise });
  while (docs.size > 4) {
    const [oldest, entry] = docs.entries().next().value as [string, { task: Loading }];
    docs.delete(oldest);
    void entry.task.destroy();
  }
  return task.promise;
}

/** Where an OCR'd passage stands on its page, as fractions of the page (the anchor's `box`). */
export interface PageBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

export function PdfView({ url, page: cited, passage, box = null }: { url: string; page: number; passage: string; box?: PageBox | null }) {
  const holder = useRef<HTMLDivElement>(null);
  // The page on screen: the cited one first; the toolbar moves through the rest of the document (a
  // move belongs to the hit it was made on).
  const hit = `${url}\n${cited}`;
  const [moved, setMoved] = useState<{ hit: string; page: number } | null>(null);
  const page = moved?.hit === hit ? moved.page : cited;
  const setPage = (n: number): void => setMoved({ hit, page: n });
  const [pages, setPages] = useState<number | null>(null);
  // How the drawing of this page for this passage went: 'loading' until it says.
  // The box as text: a new search hands over an equal box in a new object, which must not draw the page again.
  const boxAt = box ? [box.x, box.y, box.w, box.h].join(',') : '';
  const job = `${hit}\n${page}\n${passage}\n${boxAt}`;
  const [drawn, setDrawn] = useState<{ job: string; state: 'ready' | string } | null>(null);
  const state = drawn?.job === job ? drawn.state : 'loading';
  useEffect(() => {
    const setState = (s: string): void => setDrawn({ job, state: s });
    let cancelled = false;
    const el = holder.current!;
    // Each render draws into a stage of its own. Typing moves from hit to hit faster than a page
    // renders: a render overtaken by the next one must leave no canvas, text layer or mark behind
    // (the marks of one page drawn over another were all wrong).
    const stage = document.createElement('div');
    stage.className = 'pdf-stage';
    el.replaceChildren(stage);
    (async () => {
      const lib = await pdfjs();
      const doc = await openDoc(lib, url);
      if (cancelled) return;
      setPages(doc.numPages);
      const p = await doc.getPage(Math.min(page, doc.numPages));
      if (cancelled) return;
      const width = el.clientWidth || 800;
      const viewport = p.getViewport({ scale: width / p.getViewport({ scale: 1 }).width });
      const canvas = document.createElement('canvas');
      const ratio = window.devicePixelRatio || 1;
      canvas.width = Math.floor(viewport.width * ratio);
      canvas.height = Math.floor(viewport.height * ratio);
      canvas.style.width = `${viewport.width}px`;
      canvas.style.height = `${viewport.height}px`;
      canvas.className = 'pdf-page';
      canvas.dataset.page = String(page);
      const layer = document.createElement('div');
      layer.className = 'textLayer';
      // pdf.js 5+ sizes the text layer's spans from --total-scale-factor; without it each span keeps the
      // inherited font size and its box overruns the glyphs (a left-column highlight reached across the gutter).
      layer.style.setProperty('--scale-factor', String(viewport.scale));
      layer.style.setProperty('--total-scale-factor', String(viewport.scale));
      el.style.width = `${viewport.width}px`;
      el.style.height = `${viewport.height}px`;
      stage.append(canvas, layer);
      await p.render({ canvas, viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : undefined }).promise;
      if (cancelled) return;
      const text = new lib.TextLayer({ textContentSource: p.streamTextContent(), container: layer, viewport });
      await text.render();
      if (cancelled) return;
      const spans = [...layer.querySelectorAll('span')].filter((s) => !s.classList.contains('markedContent'));
      // The passage is marked on the page it is cited on, not on the pages around it.
      const marked =
        page !== cited
          ? []
          : spansToMark(
              spans.map((s) => {
                const r = s.getBoundingClientRect();
                return { text: s.textContent ?? '', left: r.left, right: r.right, top: r.top, bottom: r.bottom };
              }),
              passage,
            );
      for (const i of marked) spans[i]!.classList.add('hl-span');
      layer.dataset.passage = passage.slice(0, 80);
      // A scanned page has no text to find the words in: OCR said where its paragraphs stand.
      let region: HTMLElement | null = null;
      if (page === cited && marked.length === 0 && boxAt) {
        const [x, y, w, h] = boxAt.split(',').map(Number) as [number, number, number, number];
        region = document.createElement('div');
        region.className = 'ocr-region';
        Object.assign(region.style, {
          left: `${x * viewport.width}px`,
          top: `${y * viewport.height}px`,
          width: `${w * viewport.width}px`,
          height: `${h * viewport.height}px`,
        });
        stage.append(region);
      }
      // The cited passage in the middle of the pane; another page from its top, below the page bar.
      if (marked.length > 0) spans[marked[0]!]!.scrollIntoView({ block: 'center' });
      else if (region) region.scrollIntoView({ block: 'center' });
      else el.scrollIntoView({ block: 'start' });
      setState('ready');
    })().catch((e: Error) => !cancelled && setState(e.message));
    return () => {
      cancelled = true;
      stage.remove();
    };
  }, [url, page, cited, passage, job, boxAt]);
  const go = (n: number): void => setPage(Math.max(1, Math.min(pages ?? n, n)));
  return (
    <div className="pdf">
      <div className="pdf-nav" role="toolbar" aria-label="Pages">
        <button onClick={() => go(page - 1)} disabled={page <= 1} aria-label="Previous page">
          ‹
        </button>
        <span data-testid="pdf-page">
          Page {page}
          {pages ? ` of ${pages}` : ''}
        </span>
        <button onClick={() => go(page + 1)} disabled={pages === null || page >= pages} aria-label="Next page">
          ›
        </button>
        {page !== cited && <button onClick={() => setPage(cited)}>Back to the cited page ({cited})</button>}
      </div>
      {state !== 'ready' && state !== 'loading' && <p className="error">Cannot open it: {state}</p>}
      <div ref={holder} className="pdf-holder" data-state={state} />
    </div>
  );
}
