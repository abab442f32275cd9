// Parsing runs on worker threads so that the engine's own thread only reads files and writes the
// index: on two cores, parsing one file overlaps writing the previous one, and the engine's message
// loop stays free for searches. Falls back to parsing in-thread when no thread can be started.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadEntry } from '../threads.js';
import { type ErrorCode, KbError } from '../../shared/errors.js';
import { type PdfMeta, type PdfProgress, type PdfRequest, parsePdf } from './pdf.js';
import { type Raster, type RasterRequest, raster } from './raster.js';
import type { ParsedChunk, ParsedDocument } from './types.js';
import { type ParseRequest, parseText } from './parse.js';

interface Pending {
  resolve: (d: ParsedDocument | PdfMeta | Raster) => void;
  reject: (e: Error) => void;
  onChunks?: (chunks: ParsedChunk[], progress: PdfProgress) => void;
}

/** What a parse thread sends back: a PDF's chunks come a window of pages at a time, then its meta. */
interface Reply {
  id: number;
  doc?: ParsedDocument;
  meta?: PdfMeta;
  raster?: Raster;
  chunks?: ParsedChunk[];
  progress?: PdfProgress;
  error?: { code: ErrorCode; message: string };
}

export class ParsePool {
  private readonly workers: { w: Worker; busy: number }[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private broken = false;

  constructor(private readonly size = Math.max(1, Math.min(4, availableParallelism() - 1))) {}

  private start(): void {
    const entry = threadEntry('ingest/parse-thread');
    if (!entry) {
      this.broken = true;
      return;
    }
    for (let i = 0; i < this.size; i++) {
      const w = new Worker(entry.url, { execArgv: entry.execArgv });
      const slot = { w, busy: 0 };
      w.on('message', (m: Reply) => {
        const p = this.pending.get(m.id);
        if (m.chunks) {
          if (m.progress) p?.onChunks?.(m.chunks, m.progress);
          return;
        }
        this.pending.delete(m.id);
        slot.busy--;
        if (slot.busy === 0) w.unref(); // an idle pool must not keep the process alive
        if (!p) return;
        if (m.doc) p.resolve(m.doc);
        else if (m.meta) p.resolve(m.meta);
        else if (m.raster) p.resolve(m.raster);
        else p.reject(new KbError(m.error?.code ?? 'PARSE_FAILED', m.error?.message ?? 'parse thread failed'));
      });
      w.on('error', (e) => this.fail(e));
      w.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`parse thread exited with code ${code}`));
      });
      w.unref();
      this.workers.push(slot);
    }
  }

  /** A crashed thread fails what it was doing; later work parses in-thread. */
  private fail(e: Error): void {
    this.broken = true;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  async parse(req: ParseRequest): Promise<ParsedDocument> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return parseText(req);
    return this.send({ req }, []) as Promise<ParsedDocument>;
  }

  /** Reads a PDF on a thread; its chunks arrive through onChunks a window of pages at a time. */
  async parsePdf(req: PdfRequest, onChunks: (chunks: ParsedChunk[], progress: PdfProgress) => void): Promise<PdfMeta> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return parsePdf(req, onChunks);
    return this.send({ pdf: req }, [req.data.buffer as ArrayBuffer], onChunks) as Promise<PdfMeta>;
  }

  /** Pixels for OCR: an image made readable, or a PDF page rendered (see raster.ts). */
  async raster(req: RasterRequest): Promise<Raster> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return raster(req);
    return this.send({ raster: req }, [req.data.buffer as ArrayBuffer]) as Promise<Raster>;
  }

  private send(msg: object, transfer: ArrayBuffer[], onChunks?: Pending['onChunks']): Promise<ParsedDocument | PdfMeta | Raster> {
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...(onChunks ? { onChunks } : {}) });
      if (slot.busy++ === 0) slot.w.ref();
      slot.w.postMessage({ id, ...msg }, transfer);
    });
  }

  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    await Promise.all(ws.map((s) => s.w.terminate()));
  }
}
