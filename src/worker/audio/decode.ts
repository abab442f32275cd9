// Audio (and the sound of a video) → 16 kHz mono float32, the form whisper takes, by ffmpeg in a child
// process. Samples stream out a window at a time, so a 3-hour recording never sits in memory whole,
// and the engine's thread only copies bytes while ffmpeg does the decoding on its own core.
import { spawn, spawnSync } from 'node:child_process';
import { KbError } from '../../shared/errors.js';

export const SAMPLE_RATE = 16_000;

/** The ffmpeg to run: the configured path, else the one on PATH. Throws with how to install it. */
export function findFfmpeg(configured: string): string {
  const bin = configured || 'ffmpeg';
  const r = spawnSync(bin, ['-hide_banner', '-version'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
  if (r.error || r.status !== 0) {
    const how =
      process.platform === 'darwin'
        ? 'brew install ffmpeg'
        : process.platform === 'win32'
          ? 'winget install ffmpeg'
          : 'sudo apt install ffmpeg (or your system’s package manager)';
    throw new KbError(
      'UNSUPPORTED',
      configured
        ? `ffmpeg was not found at ${configured} (audio.ffmpeg_path); audio cannot be decoded`
        : `ffmpeg is not installed, so audio and video cannot be decoded: ${how}, or set audio.ffmpeg_path`,
    );
  }
  return bin;
}

/** Whether ffmpeg can be run, asked at most once a minute: why not, or null when it can. */
const ffmpegSeen = new Map<string, { at: number; missing: string | null }>();
export function ffmpegMissing(configured: string): string | null {
  const seen = ffmpegSeen.get(configured);
  if (seen && Date.now() - seen.at < 60_000) return seen.missing;
  let missing: string | null = null;
  try {
    findFfmpeg(configured);
  } catch (e) {
    missing = (e as Error).message;
  }
  ffmpegSeen.set(configured, { at: Date.now(), missing });
  return missing;
}

export interface PcmWindow {
  /** Seconds from the start of the file to this window's first sample. */
  start: number;
  pcm: Float32Array;
}

/**
 * Decodes `file` and yields windows of `windowSeconds` (the last one shorter). Stopping the loop early
 * (break, or the signal) kills ffmpeg. A file ffmpeg cannot read fails with PARSE_FAILED and its reason.
 */
export async function* decodeWindows(ffmpeg: string, file: string, windowSeconds: number, signal?: AbortSignal): AsyncGenerator<PcmWindow> {
  const child = spawn(
    ffmpeg,
    ['-nostdin', '-hide_banner', '-loglevel', 'error', '-i', file, '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 'f32le', 'pipe:1'],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const spawnFailed = new Promise<never>((_, reject) =>
    child.on('error', (e) => reject(new KbError('UNSUPPORTED', `ffmpeg could not be started: ${e.message}`))),
  );
  spawnFailed.catch(() => undefined);
  const kill = (): void => void child.kill('SIGKILL');
  signal?.addEventListener('abort', kill, { once: true });
  const windowBytes = windowSeconds * SAMPLE_RATE * 4;
  let buf = Buffer.alloc(windowBytes);
  let filled = 0;
  let start = 0;
  const take = (n: number): PcmWindow => {
    // Copy out whole samples; an odd tail byte count waits for the next read.
    const usable = n - (n % 4);
    const pcm = new Float32Array(usable / 4);
    new Uint8Array(pcm.buffer).set(buf.subarray(0, usable));
    const w = { start, pcm };
    start += pcm.length / SAMPLE_RATE;
    buf.copy(buf, 0, usable, filled);
    filled -= usable;
    return w;
  };
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let off = 0;
      while (off < chunk.length) {
        const n = Math.min(chunk.length - off, windowBytes - filled);
        chunk.copy(buf, filled, off, off + n);
        filled += n;
        off += n;
        if (filled === windowBytes) yield take(filled);
      }
    }
    const code = await Promise.race([exited, spawnFailed]);
    if (signal?.aborted) throw new KbError('INVALID_ARGUMENT', 'cancelled');
    if (code !== 0) {
      const why = stderr.trim().split('\n').pop() || `ffmpeg exited with code ${code}`;
      throw new KbError('PARSE_FAILED', `not audio ffmpeg can decode: ${why.replace(/^.*?: /, '')}`);
    }
    if (filled >= 4) yield take(filled);
  } finally {
    signal?.removeEventListener('abort', kill);
    if (child.exitCode === null) kill();
    buf = Buffer.alloc(0);
  }
}
