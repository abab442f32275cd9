// One pass over the user's paths: walk, detect, parse, and store each document in one transaction.
// A failing file is recorded and the run goes on; what was indexed before stays as it was.
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, type Stats, statSync } from 'node:fs';
import { access, open, readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Config } from '../../shared/config.js';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import { SCHEMA_VERSION, type IngestProgress, type IngestSummary } from '../../shared/wire.js';
import type { BlobStore } from '../store/blobs.js';
import type { DocRow, Repo } from '../store/repo.js';
import { AUDIO_EXT, decodeText, detect, type Detected } from './detect.js';
import { ParsePool } from './parse-pool.js';
import { chunkIdsFrom } from './chunk-ids.js';
import { PARSER_VERSION, type ParsedDocument } from './types.js';
import { walk } from './walk.js';
import { imageSize } from 'image-size';

export { runOcr } from './ocr-pass.js';
export { runTranscription } from '../audio/pass.js';
export { Ocr } from './ocr.js';

export interface IngestOptions {
  tags?: string[];
  /** Called for an already indexed document that got new tags (its vectors carry tags too). */
  onRetag?: (docId: string) => void;
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
  /** How each file of the batch went, as counted in the summary (the OCR and audio passes may revise it). */
  onOutcome?: (path: string, outcome: FileOutcome) => void;
}

export type FileOutcome = 'added' | 'updated' | 'unchanged' | 'moved' | 'failed' | 'skipped';

interface Ctx {
  repo: Repo;
  blobs: BlobStore;
  config: Config;
  parser: ParsePool;
  dataDir: string;
  /** Whether a speech model is installed: audio is queued for it, or waits for one. */
  speechModelReady?: () => boolean;
}

/** What an audio file's document says while no speech model is installed (kb ls shows it). */
export function waitingForSpeechModel(model: string): string {
  return `waiting for a speech model: run kb models pull ${model} (or kb models import FILE)`;
}

export function createParsePool(): ParsePool {
  return new ParsePool();
}

type Outcome = 'added' | 'updated' | 'unchanged' | 'moved';

/** A file read and parsed, waiting for its turn to be written (writes happen strictly in order). */
type Prepared = { skip: string } | { commit: () => Outcome } | { commitAsync: () => Promise<Outcome> };

/** Files read and parsed ahead of the one being written: overlaps file I/O with index writes. */
const READ_AHEAD = 8;
/**
 * Files up to this size are read (and copied to the store) with synchronous calls: tens of
 * microseconds each, while every async step would wait for the engine thread between index writes.
 */
const SMALL_FILE = 1024 * 1024;
/**
 * Documents are written in batches: one outer transaction for up to this long, each document inside it
 * its own savepoint (better-sqlite3 nests transactions that way). A document stays all-or-nothing, a
 * failing one rolls back alone, and commits (and FTS5 segment flushes) happen a few times a second
 * instead of once per file. A crash loses at most the last batch, which the next run simply redoes.
 */
const BATCH_MS = 200;
/** The longest the ingest loop runs without letting the engine's message loop take a turn. */
const YIELD_MS = 8;

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export function normalizeTags(tags: string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))].sort();
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function fsError(e: unknown, path: string): KbError {
  if (e instanceof KbError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new KbError('VANISHED', `${path} disappeared while it was being read`);
  if (code === 'EACCES' || code === 'EPERM') return new KbError('UNREADABLE', `permission denied: ${path}`);
  if (code === 'EISDIR') return new KbError('UNREADABLE', `${path} is a folder`);
  return new KbError('UNREADABLE', `cannot read ${path}: ${(e as Error).message}`);
}

async function parse(ctx: Ctx, d: Extract<Detected, { kind: 'text' }>, text: string, path: string): Promise<ParsedDocument> {
  const name = basename(path);
  try {
    return await ctx.parser.parse({ type: d.type, text, name, ext: extname(path).toLowerCase(), lang: d.lang, chunking: ctx.config.chunking });
  } catch (e) {
    throw new KbError('PARSE_FAILED', `could not parse ${name} as ${d.type}: ${(e as Error).message}`, { cause: e });
  }
}

async function prepareFile(ctx: Ctx, path: string, root: string, tags: string[], onRetag?: (docId: string) => void): Promise<Prepared> {
  const { repo, blobs, config } = ctx;
  let st;
  let head: Uint8Array;
  let small: Buffer | null = null;
  try {
    st = statSync(path);
    if (st.size <= SMALL_FILE) {
      small = readFileSync(path);
      head = small.subarray(0, 8192);
    } else head = await readHead(path);
  } catch (e) {
    throw fsError(e, path);
  }
  const detected = await detect(path, head);
  if (detected.kind === 'skip') return { skip: detected.reason };
  const [limit, what, key] =
    detected.kind === 'pdf' || detected.kind === 'image'
      ? [config.ingest.max_pdf_bytes, 'PDFs and images', 'ingest.max_pdf_bytes']
      : detected.kind === 'audio'
        ? [config.audio.max_bytes, 'audio and video', 'audio.max_bytes']
        : [config.ingest.max_text_bytes, 'text', 'ingest.max_text_bytes'];
  if (detected.kind === 'image' && !config.ocr.enabled) return { skip: 'an image, and OCR is off (ocr.enabled)' };
  if (detected.kind === 'audio' && !config.audio.enabled) return { skip: 'audio or video, and transcription is off (audio.enabled)' };
  if (st.size > limit) {
    throw new KbError('TOO_LARGE', `${(st.size / 1048576).toFixed(1)} MB is over the ${(limit / 1048576).toFixed(0)} MB limit for ${what} (${key})`);
  }
  // Audio and video are hashed and copied as streams: a long recording is never held in memory.
  let bytes: Buffer | null = null;
  let hash: string;
  try {
    if (detected.kind === 'audio' && !small) hash = await sha256File(path);
    else {
      bytes = small ?? (await readFile(path));
      hash = sha256(bytes);
    }
  } catch (e) {
    throw fsError(e, path);
  }
  const putBlob = (h: string): Promise<void> => (bytes ? blobs.put(h, bytes) : blobs.putFile(h, path));
  const existing = repo.docByPath(path);
  const now = Date.now();

  if (existing && existing.status === 'indexed' && existing.content_hash === hash && existing.parser_version === PARSER_VERSION) {
    // A lost copy of the original (see BlobStore) is written again while the file is at hand.
    const orig = repo.originalOf(existing.id);
    if (orig?.blob && !(await blobs.has(orig.blob))) await putBlob(orig.blob);
    return {
      commit: () => {
        repo.db.transaction(() => {
          if (repo.addTags(existing.id, tags) > 0) {
            repo.refreshFts(existing.id);
            onRetag?.(existing.id);
          }
          if (existing.error) repo.setDocError(existing.id, null);
          // Touched but the same: remember the new mtime, so reconciling on start need not read it again.
          if (existing.mtime !== Math.floor(st.mtimeMs)) repo.setMtime(existing.id, Math.floor(st.mtimeMs));
          repo.clearErrors(path);
        })();
        return 'unchanged';
      },
    };
  }

  if (!existing) {
    // A file that moved: same bytes, and its old path is gone. It keeps its id and its chunks.
    for (const cand of repo.docsByHash(hash)) {
      if (cand.parser_version !== PARSER_VERSION || (await exists(cand.path))) continue;
      return {
        commit: () => {
          repo.db.transaction(() => {
            repo.movePath(cand.id, path, root, Math.floor(st.mtimeMs));
            if (repo.addTags(cand.id, tags) > 0) {
              repo.refreshFts(cand.id);
              onRetag?.(cand.id);
            }
            repo.clearErrors(path);
          })();
          return 'moved';
        },
      };
    }
  }

  const docId = existing?.id ?? sha256(`doc\u0000${path}\u0000${hash}`).slice(0, 20);
  const copy = config.store_originals === 'copy' && st.size <= config.ingest.copy_max_bytes;
  if (detected.kind === 'audio') return prepareAudio(ctx, { path, root, tags, hash, docId, copy, st, existing: existing ?? null }, putBlob);
  if (!bytes) throw new KbError('INTERNAL', 'file bytes were not read');
  if (detected.kind === 'pdf') return preparePdf(ctx, { path, root, tags, bytes, hash, docId, copy, st, existing: existing ?? null });
  if (detected.kind === 'image') return prepareImage(ctx, { path, root, tags, bytes, hash, docId, copy, st, existing: existing ?? null });
  const { text } = decodeText(bytes);
  const parsed = await parse(ctx, detected, text, path);
  if (copy) {
    if (bytes.length <= SMALL_FILE) blobs.putSync(hash, bytes);
    else await blobs.put(hash, bytes);
  }
  const doc: DocRow = {
    id: docId,
    path,
    root,
    title: parsed.title,
    type: parsed.type,
    lang: parsed.lang,
    content_hash: hash,
    size: st.size,
    mtime: Math.floor(st.mtimeMs),
    page_count: null,
    duration: null,
    parser_version: PARSER_VERSION,
    status: 'indexed',
    error: null,
    original: copy ? 'copy' : 'reference',
    added_at: existing?.added_at ?? now,
    updated_at: now,
  };
  const chunks = chunkIdsFrom(docId, parsed.chunks, new Map(), 0);
  return {
    commit: () => {
      repo.db.transaction(() => {
        repo.upsertDoc(doc);
        // Tags before chunks: the chunk trigger indexes the document's tags as filter tokens.
        repo.addTags(docId, normalizeTags([...parsed.tags, ...tags]));
        repo.replaceChunks(docId, chunks);
        repo.setOriginal({ doc_id: docId, mode: copy ? 'copy' : 'reference', blob: copy ? hash : null, sha256: hash });
        repo.clearErrors(path);
      })();
      return existing ? 'updated' : 'added';
    },
  };
}

/**
 * A PDF is written as it is read: its commit opens a savepoint, inserts each window of pages' chunks
 * as the parse thread sends them, and releases the savepoint at the end (or rolls it back, leaving
 * the previous version of the document untouched). Only a window of pages is ever in memory here.
 */
function preparePdf(ctx: Ctx, f: BinaryFile): Prepared {
  const { repo, blobs, config } = ctx;
  return {
    commitAsync: async () => {
      const db = repo.db;
      const doc = binaryDoc(f, 'pdf', basename(f.path).replace(/\.pdf$/i, ''), null);
      db.exec('SAVEPOINT pdf_doc');
      try {
        repo.upsertDoc(doc);
        repo.addTags(f.docId, normalizeTags(f.tags));
        repo.replaceChunks(f.docId, []);
        const seen = new Map<string, number>();
        let ordinal = 0;
        const data = new Uint8Array(f.bytes); // a copy the parse thread can take over
        const meta = await ctx.parser.parsePdf(
          { data, name: basename(f.path), chunking: config.chunking, timeoutMs: config.ingest.pdf_timeout_s * 1000 },
          (chunks, progress) => {
            // Title and language first: the chunk trigger indexes them with every chunk.
            if (ordinal === 0) repo.setDocMeta(f.docId, { title: progress.title, lang: progress.lang, page_count: null });
            repo.insertChunks(f.docId, chunkIdsFrom(f.docId, chunks, seen, ordinal));
            ordinal += chunks.length;
          },
        );
        repo.setDocMeta(f.docId, { title: meta.title, lang: meta.lang ?? null, page_count: meta.pageCount });
        repo.clearOcr(f.docId);
        if (meta.textlessPages.length > 0) {
          if (config.ocr.enabled) {
            // Read after this batch's text is indexed; a PDF of thousands of blank pages gets a cap, and says so.
            repo.queueOcr(f.docId, meta.textlessPages.slice(0, config.ocr.max_pages));
            if (meta.textlessPages.length > config.ocr.max_pages) {
              repo.setDocError(f.docId, `TOO_LARGE: OCR reads only the first ${config.ocr.max_pages} of its ${meta.textlessPages.length} pages without text (ocr.max_pages)`);
            }
          } else if (ordinal === 0) {
            throw new KbError('EMPTY', `no text on any of its ${meta.pageCount} pages, and OCR is off (ocr.enabled)`);
          }
        }
        if (f.copy) await blobs.put(f.hash, f.bytes);
        repo.setOriginal({ doc_id: f.docId, mode: f.copy ? 'copy' : 'reference', blob: f.copy ? f.hash : null, sha256: f.hash });
        repo.clearErrors(f.path);
        db.exec('RELEASE pdf_doc');
      } catch (e) {
        db.exec('ROLLBACK TO pdf_doc');
        db.exec('RELEASE pdf_doc');
        throw e;
      }
      return f.existing ? 'updated' : 'added';
    },
  };
}

type BinaryFile = { path: string; root: string; tags: string[]; bytes: Buffer; hash: string; docId: string; copy: boolean; st: Stats; existing: DocRow | null };

/** The document row of a PDF or an image, before its text is read. */
function binaryDoc(f: BinaryFile, type: 'pdf' | 'image', title: string, pageCount: number | null): DocRow {
  const now = Date.now();
  return {
    id: f.docId,
    path: f.path,
    root: f.root,
    title,
    type,
    lang: null,
    content_hash: f.hash,
    size: f.st.size,
    mtime: Math.floor(f.st.mtimeMs),
    page_count: pageCount,
    duration: null,
    parser_version: PARSER_VERSION,
    status: 'indexed',
    error: null,
    original: f.copy ? 'copy' : 'reference',
    added_at: f.existing?.added_at ?? now,
    updated_at: now,
  };
}

/** An image is indexed with no text of its own; the OCR pass reads it after the batch (ocr-pass.ts). */
function prepareImage(ctx: Ctx, f: BinaryFile): Prepared {
  const { repo, blobs } = ctx;
  // Its header must say how big it is; a truncated or mislabelled file fails here, as a document.
  let size: { width?: number; height?: number };
  try {
    size = imageSize(f.bytes);
  } catch (e) {
    throw new KbError('PARSE_FAILED', `not a readable image (${(e as Error).message})`);
  }
  if (!size.width || !size.height) throw new KbError('PARSE_FAILED', 'not a readable image (no width or height)');
  const pixels = size.width * size.height;
  if (pixels > ctx.config.ingest.max_image_pixels) {
    throw new KbError('TOO_LARGE', `${size.width} × ${size.height} pixels is over the limit of ${(ctx.config.ingest.max_image_pixels / 1e6).toFixed(0)} megapixels (ingest.max_image_pixels)`);
  }
  return {
    commitAsync: async () => {
      if (f.copy) await blobs.put(f.hash, f.bytes);
      repo.db.transaction(() => {
        repo.upsertDoc(binaryDoc(f, 'image', basename(f.path), 1));
        repo.addTags(f.docId, normalizeTags(f.tags));
        repo.replaceChunks(f.docId, []);
        repo.clearOcr(f.docId);
        repo.queueOcr(f.docId, [1]);
        repo.setOriginal({ doc_id: f.docId, mode: f.copy ? 'copy' : 'reference', blob: f.copy ? f.hash : null, sha256: f.hash });
        repo.clearErrors(f.path);
      })();
      return f.existing ? 'updated' : 'added';
    },
  };
}

/**
 * Audio and video are indexed with no text of their own: the document (title and length from its
 * tags) is written now, and the transcription pass reads its sound after the batch (audio/pass.ts),
 * or it waits, saying so, until a speech model is installed.
 */
function prepareAudio(ctx: Ctx, f: Omit<BinaryFile, 'bytes'>, putBlob: (hash: string) => Promise<void>): Prepared {
  const { repo, config } = ctx;
  return {
    commitAsync: async () => {
      const { readAudioMeta } = await import('../audio/metadata.js');
      const meta = await readAudioMeta(f.path);
      if (f.copy) await putBlob(f.hash);
      const ready = ctx.speechModelReady?.() ?? false;
      const title = meta.title ? (meta.artist ? `${meta.title} — ${meta.artist}` : meta.title) : basename(f.path);
      const now = Date.now();
      repo.db.transaction(() => {
        repo.upsertDoc({
          id: f.docId,
          path: f.path,
          root: f.root,
          title,
          type: 'audio',
          lang: null,
          content_hash: f.hash,
          size: f.st.size,
          mtime: Math.floor(f.st.mtimeMs),
          page_count: null,
          duration: meta.duration,
          parser_version: PARSER_VERSION,
          status: 'indexed',
          error: ready ? null : waitingForSpeechModel(config.audio.model),
          original: f.copy ? 'copy' : 'reference',
          added_at: f.existing?.added_at ?? now,
          updated_at: now,
        });
        repo.addTags(f.docId, normalizeTags(f.tags));
        repo.replaceChunks(f.docId, []);
        repo.queueTranscript(f.docId, ready ? 'pending' : 'waiting');
        repo.setOriginal({ doc_id: f.docId, mode: f.copy ? 'copy' : 'reference', blob: f.copy ? f.hash : null, sha256: f.hash });
        repo.clearErrors(f.path);
      })();
      return f.existing ? 'updated' : 'added';
    },
  };
}

function recordFailure(repo: Repo, path: string, root: string, err: KbError): void {
  const existing = repo.docByPath(path);
  const now = Date.now();
  repo.db.transaction(() => {
    repo.recordError(path, err.code, err.message);
    if (existing) {
      // Keep the last good chunks searchable; the document shows what went wrong.
      repo.setDocError(existing.id, `${err.code}: ${err.message}`);
      return;
    }
    repo.upsertDoc({
      id: sha256(`doc\u0000${path}\u0000failed`).slice(0, 20),
      path,
      root,
      title: basename(path),
      type: extname(path).toLowerCase() === '.pdf' ? 'pdf' : /^\.(png|jpe?g|webp|tiff?|bmp|gif)$/i.test(extname(path)) ? 'image' : AUDIO_EXT.has(extname(path).toLowerCase()) ? 'audio' : 'note',
      lang: null,
      content_hash: '',
      size: 0,
      mtime: 0,
      page_count: null,
      duration: null,
      parser_version: PARSER_VERSION,
      status: 'failed',
      error: `${err.code}: ${err.message}`,
      original: 'reference',
      added_at: now,
      updated_at: now,
    });
  })();
}

export async function ingestPaths(ctx: Ctx, paths: string[], opts: IngestOptions = {}): Promise<IngestSummary> {
  const started = performance.now();
  const tags = normalizeTags(opts.tags ?? []);
  const summary: IngestSummary = {
    schema_version: SCHEMA_VERSION,
    added: 0,
    updated: 0,
    unchanged: 0,
    moved: 0,
    failed: 0,
    skipped: [],
    errors: [],
    warnings: [],
    took_ms: 0,
  };
  const files: { path: string; root: string }[] = [];
  const walkOpts = { ignore: ctx.config.ingest.ignore, followSymlinks: ctx.config.ingest.follow_symlinks, followOutside: ctx.config.ingest.follow_symlinks_outside, exclude: [ctx.dataDir] };
  for await (const e of walk(paths, walkOpts)) {
    if (e.kind === 'file') files.push(e);
    else if (e.kind === 'skip') summary.skipped.push({ path: e.path, reason: e.reason });
    else {
      summary.failed++;
      summary.errors.push({ path: e.path, code: e.code, message: e.message });
    }
    opts.onProgress?.({ phase: 'scan', done: files.length, total: 0 });
  }
  let done = 0;
  const ahead: Promise<Prepared>[] = [];
  let next = 0;
  const db = ctx.repo.db;
  let batchStarted = 0;
  let lastYield = performance.now();
  const commitBatch = (): void => {
    if (db.inTransaction) db.exec('COMMIT');
  };
  try {
    for (const f of files) {
      if (!db.inTransaction) {
        db.exec('BEGIN IMMEDIATE');
        batchStarted = performance.now();
      }
      while (ahead.length < READ_AHEAD && next < files.length) {
        const n = files[next++]!;
        const p = prepareFile(ctx, n.path, n.root, tags, opts.onRetag);
        p.catch(() => undefined); // handled when its turn comes
        ahead.push(p);
      }
      const prepared = ahead.shift()!;
      opts.onProgress?.({ phase: 'ingest', done, total: files.length, path: f.path });
      if (opts.signal?.aborted) break;
      try {
        const p = await prepared;
        const r = 'skip' in p ? p : 'commitAsync' in p ? await p.commitAsync() : p.commit();
        if (typeof r === 'object') summary.skipped.push({ path: f.path, reason: r.skip });
        else if (r === 'moved') {
          summary.moved++;
          summary.updated++;
        } else summary[r]++;
        opts.onOutcome?.(f.path, typeof r === 'object' ? 'skipped' : r);
      } catch (e) {
        const err = e instanceof KbError ? e : new KbError(toErrorPayload(e).code, toErrorPayload(e).message, { cause: e });
        summary.failed++;
        summary.errors.push({ path: f.path, code: err.code, message: err.message });
        opts.onOutcome?.(f.path, 'failed');
        try {
          recordFailure(ctx.repo, f.path, f.root, err);
        } catch {
          // the error is still in the summary even if the index could not take it
        }
      }
      done++;
      if (performance.now() - batchStarted > BATCH_MS) commitBatch();
      // Files already read and parsed resolve at once, and awaiting them never lets timers or
      // messages in: give the engine's loop a turn every few ms, so searches answer meanwhile.
      if (performance.now() - lastYield > YIELD_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
  } finally {
    commitBatch();
  }
  opts.onProgress?.({ phase: 'ingest', done, total: files.length });
  summary.took_ms = Math.round(performance.now() - started);
  return summary;
}
