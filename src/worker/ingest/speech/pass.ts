// The transcription pass: after a batch's text is indexed (and searchable), audio and video are read
// by the speech model, a window at a time. Work is queued in `transcripts`, so a pass that is
// cancelled or interrupted picks up on the next ingest or open; with no speech model installed,
// documents wait ('waiting') and are queued once one is.
import { KbError, toErrorPayload } from '../../../shared/errors.js';
import type { Config } from '../../../shared/config.js';
import type { IngestError, IngestProgress } from '../../../shared/wire.js';
import type { BlobsPort } from '../../store/port.js';
import type { Store } from '../../store/port.js';
import type { TranscriptJob } from '../../store/rows.js';
import { chunkIdsFrom } from '../chunk/chunk-ids.js';
import { indexedOriginal } from '../original.js';
import { transcriptChunks } from './chunks.js';
import { decodeWindows, findFfmpeg, SAMPLE_RATE } from '../../audio/decode.js';
import type { Segment, Transcriber } from '../../audio/transcriber.js';

export interface TranscribeContext {
  store: Store;
  blobs: BlobsPort;
  config: Config;
  /** The speech model, started on first need; throws MODEL_MISSING when none is installed. */
  transcriber: () => Promise<Transcriber>;
  /** The model's name, recorded with each transcript. */
  model: string;
}

export interface TranscribePassResult {
  files: number;
  failed: number;
  pending: number;
  errors: IngestError[];
}

async function transcribeOne(
  ctx: TranscribeContext,
  job: TranscriptJob,
  ffmpeg: string,
  report: (seconds: number) => void,
  signal?: AbortSignal,
): Promise<{ segments: Segment[]; language: string | null; seconds: number }> {
  // Exactly the recording that was indexed: an edited file is the next ingest's, under its new hash.
  const file = await indexedOriginal(ctx.store, ctx.blobs, job);
  const segments: Segment[] = [];
  let language: string | null = null;
  let seconds = 0;
  let transcriber: Transcriber | null = null;
  for await (const w of decodeWindows(ffmpeg, file, ctx.config.audio.window_s, signal)) {
    transcriber ??= await ctx.transcriber();
    const r = await transcriber.transcribe(w.pcm, ctx.config.audio.language);
    language ??= r.language;
    for (const s of r.segments)
      if (s.text.trim())
        segments.push({ start: w.start + s.start, end: w.start + Math.min(s.end, w.pcm.length / SAMPLE_RATE), text: s.text.trim() });
    seconds = w.start + w.pcm.length / SAMPLE_RATE;
    report(seconds);
    if (signal?.aborted) throw new KbError('INVALID_ARGUMENT', 'cancelled');
  }
  return { segments, language, seconds };
}

export async function runTranscription(
  ctx: TranscribeContext,
  opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void } = {},
): Promise<TranscribePassResult> {
  const { tables } = ctx.store;
  const jobs = await tables.transcripts.pending();
  const result: TranscribePassResult = { files: 0, failed: 0, pending: 0, errors: [] };
  if (jobs.length === 0) return result;
  let ffmpeg: string;
  try {
    ffmpeg = findFfmpeg(ctx.config.audio.ffmpeg_path);
  } catch (e) {
    // Without ffmpeg nothing can be read: everything stays queued for when it is installed, and each
    // recording says what it waits for (a speech model alone would not help it).
    result.pending = jobs.length;
    result.errors.push({ path: jobs[0]!.path, ...toErrorPayload(e) });
    for (const job of jobs) await tables.documents.setError(job.doc_id, `waiting for ffmpeg: ${(e as Error).message}`);
    return result;
  }
  // Progress counts seconds of audio, over what the files' headers say they last.
  let seconds = 0;
  for (const j of jobs) seconds += (await tables.documents.byId(j.doc_id))?.duration ?? 0;
  const total = Math.max(1, Math.round(seconds));
  let before = 0;
  for (const [i, job] of jobs.entries()) {
    if (opts.signal?.aborted) {
      result.pending = jobs.length - i;
      break;
    }
    const report = (s: number): void =>
      opts.onProgress?.({ phase: 'transcribe', done: Math.min(total, Math.round(before + s)), total, path: job.path });
    report(0);
    // Another process sharing the store may be transcribing it already (or has since).
    if (!(await tables.transcripts.claim(job.doc_id))) continue;
    try {
      const t = await transcribeOne(ctx, job, ffmpeg, report, opts.signal);
      const chunks = transcriptChunks(t.segments, ctx.config.audio.chunk_min_s, ctx.config.audio.chunk_max_s);
      await ctx.store.write(async (w) => {
        await w.chunks.replace(job.doc_id, chunkIdsFrom(job.doc_id, chunks, new Map(), 0));
        await w.documents.setDuration(job.doc_id, Math.round(t.seconds * 1000) / 1000);
        await w.transcripts.finish({
          doc_id: job.doc_id,
          status: 'done',
          model: ctx.model,
          language: t.language,
          segments: JSON.stringify(t.segments),
          error: null,
        });
        await w.documents.setError(job.doc_id, chunks.length === 0 ? 'EMPTY: no speech found' : null);
      });
      result.files++;
      // Heard, but nothing said: the document is failed (EMPTY), and the summary must count it so.
      if (chunks.length === 0) result.errors.push({ path: job.path, code: 'EMPTY', message: 'no speech found' });
      before += t.seconds;
    } catch (e) {
      if (opts.signal?.aborted) {
        result.pending = jobs.length - i;
        break;
      }
      const err = toErrorPayload(e);
      if (err.code === 'MODEL_MISSING' || err.code === 'MODEL_INVALID' || err.code === 'UNSUPPORTED') {
        // No usable speech model (or decoder): nothing else can be read either; all stay queued.
        result.pending = jobs.length - i;
        result.errors.push({ path: job.path, ...err });
        break;
      }
      await tables.transcripts.finish({
        doc_id: job.doc_id,
        status: 'failed',
        model: ctx.model,
        language: null,
        segments: null,
        error: `${err.code}: ${err.message}`,
      });
      await tables.documents.setError(job.doc_id, `${err.code}: ${err.message}`);
      result.failed++;
      result.errors.push({ path: job.path, code: err.code, message: err.message });
    }
  }
  opts.onProgress?.({ phase: 'transcribe', done: total, total });
  return result;
}
