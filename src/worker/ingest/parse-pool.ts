// Parsing runs on worker threads so that the engine's own thread only reads files and writes the
// index: on two cores, parsing one file overlaps writing the previous one, and the engine's message
// loop stays free for searches. Falls back to parsing in-thread when no thread can be started.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ThreadEntry, threadEntry } from '../threads.js';
import { type ErrorCode, KbError } from '../../shared/errors.js';
import { type PdfMeta, type PdfProgress, type PdfRequest, parsePdf } from './formats/pdf.js';
import { type Raster, type RasterRequest, raster } from './ocr/raster.js';
import type { ParsedChunk, ParsedDocument } from './types.js';
import { type ParseRequest, parseText } from './parse.js';
import type { BlockDoc } from './formats/blocks.js';
import { type BlocksRequest, parseStructured, readStructured, type StructuredRequest } from './formats/structured.js';

interface Pending {
  resolve: (d: ParsedDocument | PdfMeta | Raster | BlockDoc) => void;
  reject: (e: Error) => void;
  onChunks?: (chunks: ParsedChunk[], progress: PdfProgress) => void;
  timer?: NodeJS.Timeout;
}

/** What a parse thread sends back: a PDF's chunks come a window of pages at a time, then its meta. */
interface Reply {
  id: number;
  doc?: ParsedDocument;
  meta?: PdfMeta;
  raster?: Raster;
  blocks?: BlockDoc;
  chunks?: ParsedChunk[];
  progress?: PdfProgress;
  error?: { code: ErrorCode; message: string };
}

interface Slot {
  w: Worker;
  busy: number;
  /** Requests this thread holds, so a hung one can be failed with the rest when it is replaced. */
  ids: Set<number>;
  /** Terminated on purpose (a watchdog): its exit is not a crash. */
  retired: boolean;
}

export class ParsePool {
  private workers: Slot[] = [];
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
    for (let i = 0; i < this.size; i++) this.workers.push(this.spawn(entry));
  }

  private spawn(entry: ThreadEntry): Slot {
    const w = new Worker(entry.url, { execArgv: entry.execArgv });
    const slot: Slot = { w, busy: 0, ids: new Set(), retired: false };
    w.on('message', (m: Reply) => {
      const p = this.pending.get(m.id);
      if (m.chunks) {
        if (m.progress) p?.onChunks?.(m.chunks, m.progress);
        return;
      }
      this.settle(slot, m.id);
      if (!p) return;
      if (m.doc) p.resolve(m.doc);
      else if (m.meta) p.resolve(m.meta);
      else if (m.raster) p.resolve(m.raster);
      else if (m.blocks) p.resolve(m.blocks);
      else p.reject(new KbError(m.error?.code ?? 'PARSE_FAILED', m.error?.message ?? 'parse thread failed'));
    });
    w.on('error', (e) => {
      if (!slot.retired) this.fail(e);
    });
    w.on('exit', (code) => {
      if (code !== 0 && !slot.retired) this.fail(new Error(`parse thread exited with code ${code}`));
    });
    w.unref();
    return slot;
  }

  private settle(slot: Slot, id: number): void {
    if (!slot.ids.delete(id)) return;
    clearTimeout(this.pending.get(id)?.timer);
    this.pending.delete(id);
    slot.busy--;
    if (slot.busy === 0) slot.w.unref(); // an idle pool must not keep the process alive
  }

  /**
   * A request that outlives its time limit is stuck inside pdf.js (its own between-page check did
   * not fire): the thread is replaced, that request fails with TIMEOUT, and the files queued behind
   * it fail with a message saying to run the ingest again.
   */
  private expire(slot: Slot, id: number, ms: number): void {
    const entry = threadEntry('ingest/parse-thread');
    const i = this.workers.indexOf(slot);
    if (!entry || i < 0) return;
    slot.retired = true;
    void slot.w.terminate();
    this.workers[i] = this.spawn(entry);
    for (const other of slot.ids) {
      const p = this.pending.get(other);
      clearTimeout(p?.timer);
      this.pending.delete(other);
      p?.reject(
        other === id
          ? new KbError('TIMEOUT', `gave up after ${Math.round(ms / 1000)} s (ingest.pdf_timeout_s): the reader stopped responding`)
          : new KbError('PARSE_FAILED', 'the reader was restarted while this file waited for it; run the ingest again'),
      );
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

  /** Word, slides, e-books, tables, web pages, mail: read into chunks on a thread. */
  async parseStructured(req: StructuredRequest): Promise<ParsedDocument> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return parseStructured(req);
    return this.send({ structured: req }, []) as Promise<ParsedDocument>;
  }

  /** A structured document's blocks for the viewer or `kb get`, read off the engine's thread. */
  async readBlocks(req: BlocksRequest): Promise<BlockDoc> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return readStructured(req.format, req.data, req.limits, req.markup);
    return this.send({ blocks: req }, []) as Promise<BlockDoc>;
  }

  /** Reads a PDF on a thread; its chunks arrive through onChunks a window of pages at a time. */
  async parsePdf(req: PdfRequest, onChunks: (chunks: ParsedChunk[], progress: PdfProgress) => void): Promise<PdfMeta> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return parsePdf(req, onChunks);
    return this.send({ pdf: req }, [req.data.buffer as ArrayBuffer], onChunks, req.timeoutMs) as Promise<PdfMeta>;
  }

  /** Pixels for OCR: an image made readable, or a PDF page rendered (see raster.ts). */
  async raster(req: RasterRequest): Promise<Raster> {
    if (this.workers.length === 0 && !this.broken) this.start();
    if (this.broken) return raster(req);
    return this.send({ raster: req }, [req.data.buffer as ArrayBuffer]) as Promise<Raster>;
  }

  private send(
    msg: object,
    transfer: ArrayBuffer[],
    onChunks?: Pending['onChunks'],
    limitMs?: number,
  ): Promise<ParsedDocument | PdfMeta | Raster | BlockDoc> {
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // The watchdog allows the thread's own limit plus a margin, counted from when the request is sent.
      const timer = limitMs === undefined ? undefined : setTimeout(() => this.expire(slot, id, limitMs), limitMs + 10_000);
      timer?.unref();
      this.pending.set(id, { resolve, reject, ...(onChunks ? { onChunks } : {}), ...(timer ? { timer } : {}) });
      slot.ids.add(id);
      if (slot.busy++ === 0) slot.w.ref();
      slot.w.postMessage({ id, ...msg }, transfer);
    });
  }

  async close(): Promise<void> {
    const ws = this.workers.splice(0);
    for (const s of ws) s.retired = true;
    await Promise.all(ws.map((s) => s.w.terminate()));
  }
}
