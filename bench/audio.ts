// Audio: decoding speed, and the engine's responsiveness while a long recording goes in.
// 1. A generated 1-hour MP3 (mono, 44.1 kHz, 64 kb/s, like a podcast) decoded to 16 kHz mono float32
//    by ffmpeg, a window at a time, as the transcription pass reads it: times faster than real time.
// 2. The same hour ingested into an index of the Cranfield abstracts, decoded and chunked (a
//    transcriber double stands in for whisper, whose weights cannot be had here, and answers at
//    once), while a search is asked every 50 ms: the slowest answer, and p95.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeWindows, findFfmpeg, SAMPLE_RATE } from '../src/worker/audio/decode.js';
import type { Segment, Transcriber } from '../src/worker/audio/transcriber.js';
import { openEngine } from '../src/worker/index.js';
import { loadCranfield } from './cranfield.js';
import { benchDir, corporaDir, freshDir, percentile, type BenchResult } from './util.js';

const HOUR = 3600;

function hourOfAudio(ffmpeg: string): string {
  const dir = benchDir('audio');
  const file = join(dir, 'hour.mp3');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    console.error('encoding a 1-hour MP3 (once)…');
    // A tone whose pitch wanders, under pink noise: not silence, so nothing is skipped.
    execFileSync(ffmpeg, [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `sine=frequency=220:duration=${HOUR}`,
      '-f',
      'lavfi',
      '-i',
      `anoisesrc=color=pink:amplitude=0.05:duration=${HOUR}`,
      '-filter_complex',
      'amix=inputs=2',
      '-ac',
      '1',
      '-ar',
      '44100',
      '-b:a',
      '64k',
      file,
    ]);
  }
  return file;
}

/** Stands in for whisper: a sentence per 5 s of sound, at once. */
const double = (): Transcriber => ({
  transcribe: async (pcm) => {
    const secs = pcm.length / SAMPLE_RATE;
    const segments: Segment[] = [];
    for (let t = 0; t < secs; t += 5)
      segments.push({
        start: t,
        end: Math.min(secs, t + 5),
        text: `The speaker talks about boundary layers and wings, part ${Math.round(t)}.`,
      });
    return { segments, language: 'en' };
  },
  close: () => undefined,
});

export async function benchAudio(): Promise<BenchResult> {
  const ffmpeg = findFfmpeg('');
  const file = hourOfAudio(ffmpeg);

  // 1. Decoding.
  const t0 = performance.now();
  let samples = 0;
  for await (const w of decodeWindows(ffmpeg, file, 300)) samples += w.pcm.length;
  const decodeS = (performance.now() - t0) / 1000;
  const decoded = samples / SAMPLE_RATE;

  // 2. Searches while the hour is decoded and chunked.
  const work = await freshDir('audio-ingest');
  const c = loadCranfield(join(corporaDir(), 'ir', 'cranfield'));
  await mkdir(join(work, 'docs'), { recursive: true });
  for (const d of c.docs) await writeFile(join(work, 'docs', `${d.id}.md`), `# ${d.title}\n\n${d.text}\n`);
  const engine = await openEngine({ dataDir: join(work, 'data'), config: { store_originals: 'reference' }, transcriber: double });
  await engine.ingest([join(work, 'docs')]);
  const queries = c.queries.slice(0, 60);
  for (const q of queries.slice(0, 10)) await engine.search({ query: q, mode: 'lexical' }); // warm
  const times: number[] = [];
  let running = true;
  const ingest = engine.ingest([file]).finally(() => (running = false));
  let i = 0;
  const started = performance.now();
  while (running) {
    const q = queries[i++ % queries.length]!;
    const t = performance.now();
    await engine.search({ query: q, mode: 'lexical', top: 10 });
    times.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  const summary = await ingest;
  const ingestS = (performance.now() - started) / 1000;
  const chunks = (await engine.list()).find((d) => d.type === 'audio')?.chunks ?? 0;
  engine.close();
  times.sort((a, b) => a - b);
  return {
    name: 'audio',
    lines: [
      `decoding a 1-hour MP3 to 16 kHz mono float32 (ffmpeg, 300 s windows): ${decoded.toFixed(1)} s of sound in ${decodeS.toFixed(1)} s = ${(decoded / decodeS).toFixed(0)}× real time`,
      `ingesting that hour (decoded, transcribed by a double that answers at once, ${chunks} chunks) in ${ingestS.toFixed(1)} s beside ${c.docs.length} abstracts: ${summary.transcribed?.files ?? 0} file transcribed`,
      `searches meanwhile, one every 50 ms (${times.length}): p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms`,
    ],
    checks: [
      { what: 'decoding speed', value: decoded / decodeS, target: 50, better: 'higher', unit: '× real time' },
      { what: 'slowest search while a 1-hour file is decoded and chunked', value: times.at(-1)!, target: 50, better: 'lower', unit: ' ms' },
    ],
  };
}
