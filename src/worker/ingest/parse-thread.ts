// Entry point of a parse thread (worker_threads): parses what the pool sends, answers with chunks.
// A PDF answers in several messages: its chunks a window of pages at a time, then its meta. A raster
// request (pixels for OCR) answers with an encoded image.
import { parentPort } from 'node:worker_threads';
import { toErrorPayload } from '../../shared/errors.js';
import { parseText, type ParseRequest } from './parse.js';
import { parsePdf, type PdfRequest } from './formats/pdf.js';
import { raster, type RasterRequest } from './ocr/raster.js';
import { parseStructured, readStructured, type BlocksRequest, type StructuredRequest } from './formats/structured.js';
import { runInBackground } from '../thread-priority.js';

runInBackground();

parentPort?.on(
  'message',
  (msg: {
    id: number;
    req?: ParseRequest;
    pdf?: PdfRequest;
    raster?: RasterRequest;
    structured?: StructuredRequest;
    blocks?: BlocksRequest;
  }) => {
    const fail = (e: unknown): void => parentPort?.postMessage({ id: msg.id, error: toErrorPayload(e) });
    if (msg.pdf) {
      parsePdf(msg.pdf, (chunks, progress) => parentPort?.postMessage({ id: msg.id, chunks, progress })).then(
        (meta) => parentPort?.postMessage({ id: msg.id, meta }),
        fail,
      );
    } else if (msg.raster) {
      raster(msg.raster).then((r) => parentPort?.postMessage({ id: msg.id, raster: r }), fail);
    } else if (msg.blocks) {
      const b = msg.blocks;
      readStructured(b.format, b.data, b.limits, b.markup).then((blocks) => parentPort?.postMessage({ id: msg.id, blocks }), fail);
    } else if (msg.structured) {
      parseStructured(msg.structured).then((doc) => parentPort?.postMessage({ id: msg.id, doc }), fail);
    } else if (msg.req) {
      parseText(msg.req).then((doc) => parentPort?.postMessage({ id: msg.id, doc }), fail);
    }
  },
);
