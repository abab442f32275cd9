// PDFs, images and audio: files whose text is not in their bytes as such. A PDF's text layer is read
// by a parse thread and written as it arrives; an image waits for the OCR pass; audio for the
// transcription pass (or for a speech model).
import { basename } from 'node:path';
import { imageSize } from 'image-size';
import { ffmpegMissing } from '../audio/decode.js';
import { KbError } from '../../shared/errors.js';
import type { Tables } from '../store/port.js';
import { chunkIdsFrom } from './chunk/chunk-ids.js';
import { docRow, type FileFacts } from './doc-row.js';
import type { IngestContext, Prepared } from './context.js';
import { normalizeTags } from './tags.js';

export type BinaryFile = FileFacts & { tags: string[]; bytes: Buffer };

/** What an audio file's document says while no speech model is installed (kb ls shows it). */
export function waitingForSpeechModel(model: string): string {
  return `waiting for a speech model: run kb models pull ${model} (or kb models import FILE)`;
}

const originalOf = (f: FileFacts) => ({
  doc_id: f.docId,
  mode: f.copy ? ('copy' as const) : ('reference' as const),
  blob: f.copy ? f.hash : null,
  sha256: f.hash,
});

/**
 * A PDF is written as it is read: its commit opens a savepoint, inserts each window of pages' chunks
 * as the parse thread sends them, and releases the savepoint at the end (or rolls it back, leaving
 * the previous version of the document untouched). Only a window of pages is ever in memory here.
 */
export function preparePdf(ctx: IngestContext, f: BinaryFile): Prepared {
  const { blobs, config } = ctx;
  return {
    commit: async (t: Tables) => {
      await t.documents.upsert(docRow(f, { type: 'pdf', title: basename(f.path).replace(/\.pdf$/i, '') }));
      await t.tags.add(f.docId, normalizeTags(f.tags));
      await t.chunks.replace(f.docId, []);
      const seen = new Map<string, number>();
      let ordinal = 0;
      // The pages' writes, in the order the parse thread sends them; a failed one fails the document.
      let written: Promise<void> = Promise.resolve();
      const data = new Uint8Array(f.bytes); // a copy the parse thread can take over
      const meta = await ctx.parser.parsePdf(
        { data, name: basename(f.path), chunking: config.chunking, timeoutMs: config.ingest.pdf_timeout_s * 1000 },
        (chunks, progress) => {
          const first = ordinal === 0;
          const rows = chunkIdsFrom(f.docId, chunks, seen, ordinal);
          ordinal += chunks.length;
          written = written.then(async () => {
            // Title and language first: the chunk trigger indexes them with every chunk.
            if (first) await t.documents.setMeta(f.docId, { title: progress.title, lang: progress.lang, page_count: null });
            await t.chunks.insert(f.docId, rows);
            // Said once the pages are in the index: a search asked on hearing it finds them.
            ctx.onPages?.(f.path, progress.pagesDone);
          });
          written.catch(() => undefined); // awaited below
        },
      );
      await written;
      await t.documents.setMeta(f.docId, { title: meta.title, lang: meta.lang ?? null, page_count: meta.pageCount });
      await t.ocr.clear(f.docId);
      if (meta.textlessPages.length > 0) {
        if (config.ocr.enabled) {
          // Read after this batch's text is indexed; a PDF of thousands of blank pages gets a cap, and says so.
          await t.ocr.queue(f.docId, meta.textlessPages.slice(0, config.ocr.max_pages));
          if (meta.textlessPages.length > config.ocr.max_pages) {
            await t.documents.setError(
              f.docId,
              `TOO_LARGE: OCR reads only the first ${config.ocr.max_pages} of its ${meta.textlessPages.length} pages without text (ocr.max_pages)`,
            );
          }
        } else if (ordinal === 0) {
          throw new KbError('EMPTY', `no text on any of its ${meta.pageCount} pages, and OCR is off (ocr.enabled)`);
        }
      }
      if (f.copy) await blobs.put(f.hash, f.bytes);
      await t.originals.set(originalOf(f));
      await t.errors.clear(f.path);
      return f.existing ? 'updated' : 'added';
    },
  };
}

/** An image is indexed with no text of its own; the OCR pass reads it after the batch (ocr/ocr-pass.ts). */
export function prepareImage(ctx: IngestContext, f: BinaryFile): Prepared {
  const { blobs } = ctx;
  // Its header must say how big it is; a truncated or mislabelled file fails here, as a document.
  let size: { width?: number; height?: number };
  try {
    size = imageSize(f.bytes);
  } catch (e) {
    throw new KbError('PARSE_FAILED', `not a readable image (${(e as Error).message})`);
  }
  if (!size.width || !size.height) throw new KbError('PARSE_FAILED', 'not a readable image (no width or height)');
  const max = ctx.config.ingest.max_image_pixels;
  if (size.width * size.height > max) {
    throw new KbError(
      'TOO_LARGE',
      `${size.width} × ${size.height} pixels is over the limit of ${(max / 1e6).toFixed(0)} megapixels (ingest.max_image_pixels)`,
    );
  }
  return {
    commit: async (t: Tables) => {
      if (f.copy) await blobs.put(f.hash, f.bytes);
      await t.documents.upsert(docRow(f, { type: 'image', title: basename(f.path), page_count: 1 }));
      await t.tags.add(f.docId, normalizeTags(f.tags));
      await t.chunks.replace(f.docId, []);
      await t.ocr.clear(f.docId);
      await t.ocr.queue(f.docId, [1]);
      await t.originals.set(originalOf(f));
      await t.errors.clear(f.path);
      return f.existing ? 'updated' : 'added';
    },
  };
}

/**
 * Audio and video are indexed with no text of their own: the document (title and length from its
 * tags) is written now, and the transcription pass reads its sound after the batch (audio/pass.ts),
 * or it waits, saying so, until a speech model is installed.
 */
export function prepareAudio(ctx: IngestContext, f: Omit<BinaryFile, 'bytes'>, putBlob: (hash: string) => Promise<void>): Prepared {
  const { config } = ctx;
  return {
    commit: async (t: Tables) => {
      const { readAudioMeta } = await import('../audio/metadata.js');
      const meta = await readAudioMeta(f.path);
      if (f.copy) await putBlob(f.hash);
      const ready = ctx.speechModelReady?.() ?? false;
      const title = meta.title ? (meta.artist ? `${meta.title} — ${meta.artist}` : meta.title) : basename(f.path);
      // Waiting for a speech model, and for ffmpeg too when it is missing: the model alone would not do.
      const noFfmpeg = ffmpegMissing(config.audio.ffmpeg_path);
      const waiting = ready
        ? null
        : `${waitingForSpeechModel(config.audio.model)}${noFfmpeg ? `; it also needs ffmpeg — ${noFfmpeg}` : ''}`;
      await t.documents.upsert(docRow(f, { type: 'audio', title, duration: meta.duration, error: waiting }));
      await t.tags.add(f.docId, normalizeTags(f.tags));
      await t.chunks.replace(f.docId, []);
      await t.transcripts.queue(f.docId, ready ? 'pending' : 'waiting');
      await t.originals.set(originalOf(f));
      await t.errors.clear(f.path);
      return f.existing ? 'updated' : 'added';
    },
  };
}
