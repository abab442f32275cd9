// Audio and video. Decoding runs for real (ffmpeg) on ../shared/corpora/audio. Transcription plumbing
// (chunking, citations, status) runs with a transcriber double that returns known segments: no whisper
// weights can be had here. The real smart-whisper path is tested where it can be: model files are
// checked before loading, and a crash of the whisper child is one document's error, not the engine's.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcriptChunks } from '../src/worker/ingest/speech/chunks.js';
import { decodeWindows, findFfmpeg, SAMPLE_RATE } from '../src/worker/audio/decode.js';
import { readAudioMeta } from '../src/worker/audio/metadata.js';
import { WhisperProcess, type Segment, type Transcriber } from '../src/worker/audio/transcriber.js';
import { validateWhisperFile, whisperModelFile } from '../src/worker/audio/whisper-models.js';
import { corporaDir, engineIn, kb, tempDir } from './helpers.js';

const corpora = corporaDir();
const audio = (f: string): string => join(corpora ?? '', 'audio', f);
let hasFfmpeg = true;
try {
  findFfmpeg('');
} catch {
  hasFfmpeg = false;
  console.warn('audio decoding tests skipped: ffmpeg is not installed (apt-get install ffmpeg)');
}

/** A transcriber that "hears" one segment per 4 s of sound, numbered, with a full stop every third. */
function fakeTranscriber(calls: { samples: number }[] = []): () => Transcriber {
  return () => ({
    transcribe: async (pcm) => {
      calls.push({ samples: pcm.length });
      const secs = pcm.length / SAMPLE_RATE;
      const segments: Segment[] = [];
      for (let t = 0, i = 0; t < secs; t += 4, i++)
        segments.push({ start: t, end: Math.min(secs, t + 4), text: `walrus words part ${Math.round(t)}${i % 3 === 2 ? '.' : ''}` });
      return { segments, language: 'en' };
    },
    close: () => undefined,
  });
}

/** A ggml header with a tiny whisper model's hyperparameters (f16), then `bytes` of filler. */
function ggmlFile(path: string, bytes: number): void {
  const head = Buffer.alloc(48);
  head.writeUInt32LE(0x67676d6c, 0);
  [51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1].forEach((v, i) => head.writeInt32LE(v, 4 + 4 * i));
  const body = Buffer.alloc(bytes);
  for (let i = 0; i < body.length; i += 4096) body[i] = (i * 7) & 0xff;
  writeFileSync(path, Buffer.concat([head, body]));
}

describe.skipIf(!corpora || !hasFfmpeg)('decoding (ffmpeg, real files)', () => {
  const truth: Record<string, { seconds: number; rate: number; channels: number }> = {
    'jfk.wav': { seconds: 11, rate: 16000, channels: 1 },
    'jfk.mp3': { seconds: 11, rate: 16000, channels: 1 },
    'jfk.ogg': { seconds: 11, rate: 16000, channels: 1 },
    'jfk.opus': { seconds: 11, rate: 48000, channels: 1 },
    'bernie30s.wav': { seconds: 30, rate: 16000, channels: 2 },
  };
  for (const [file, t] of Object.entries(truth)) {
    it(`${file}: 16 kHz mono float32 of the right length; the file's own rate and channels read right`, async () => {
      let samples = 0;
      let windows = 0;
      let peak = 0;
      for await (const w of decodeWindows(findFfmpeg(''), audio(file), 4)) {
        expect(w.start).toBeCloseTo(windows * 4, 6);
        samples += w.pcm.length;
        windows++;
        for (const x of w.pcm) peak = Math.max(peak, Math.abs(x));
      }
      expect(Math.abs(samples / SAMPLE_RATE - t.seconds)).toBeLessThan(0.05);
      expect(windows).toBe(Math.ceil(t.seconds / 4));
      expect(peak).toBeGreaterThan(0.05); // real sound, in [-1, 1]
      expect(peak).toBeLessThanOrEqual(1);
      const meta = await readAudioMeta(audio(file));
      expect([meta.sampleRate, meta.channels]).toEqual([t.rate, t.channels]);
    });
  }

  it('takes the sound of a video (mp4, webm)', async () => {
    const dir = await tempDir();
    for (const [file, codecs] of [
      ['clip.mp4', ['-c:v', 'mpeg4', '-c:a', 'aac']],
      ['clip.webm', ['-c:v', 'libvpx', '-c:a', 'libopus']],
    ] as const) {
      execFileSync(findFfmpeg(''), [
        '-loglevel',
        'error',
        '-f',
        'lavfi',
        '-i',
        'testsrc=duration=3:size=160x120:rate=10',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=300:duration=3',
        ...codecs,
        '-shortest',
        join(dir, file),
      ]);
      let samples = 0;
      for await (const w of decodeWindows(findFfmpeg(''), join(dir, file), 60)) samples += w.pcm.length;
      expect(Math.abs(samples / SAMPLE_RATE - 3), file).toBeLessThan(0.05);
    }
  });

  it('says clearly what is wrong with a file that is not audio, and with a missing ffmpeg', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'fake.mp3'), 'this is not an mp3 at all '.repeat(100));
    await expect(async () => {
      for await (const _ of decodeWindows(findFfmpeg(''), join(dir, 'fake.mp3'), 4)) void _;
    }).rejects.toThrow(/not audio ffmpeg can decode/);
    expect(() => findFfmpeg('/nowhere/ffmpeg')).toThrow(/ffmpeg was not found at \/nowhere\/ffmpeg \(audio\.ffmpeg_path\)/);
  });

  it.skipIf(!corporaDir())('says on a waiting recording that it needs ffmpeg too, with or without a speech model', async () => {
    const dir = await tempDir();
    copyFileSync(join(corporaDir()!, 'audio/jfk.mp3'), join(dir, 'jfk.mp3'));
    const noModel = await engineIn(join(dir, 'a'), { audio: { ffmpeg_path: '/nowhere/ffmpeg' } });
    await noModel.ingest([join(dir, 'jfk.mp3')]);
    expect((await noModel.list())[0]).toMatchObject({
      status: 'waiting',
      reason: expect.stringMatching(/^waiting for a speech model: .*; it also needs ffmpeg — ffmpeg was not found at \/nowhere\/ffmpeg/),
    });
    // With a speech model there, ffmpeg is all it waits for, and it says so.
    const withModel = await engineIn(join(dir, 'b'), { audio: { ffmpeg_path: '/nowhere/ffmpeg' } }, { transcriber: fakeTranscriber() });
    await withModel.ingest([join(dir, 'jfk.mp3')]);
    expect((await withModel.list())[0]).toMatchObject({
      status: 'waiting',
      reason: expect.stringMatching(/^waiting for ffmpeg: ffmpeg was not found/),
    });
  });
});

describe('transcript chunks', () => {
  it('cuts at segment ends after about half a minute, never past a minute, citing #t= to a tenth of a second', () => {
    const segs: Segment[] = Array.from({ length: 40 }, (_, i) => ({
      start: i * 4.03,
      end: i * 4.03 + 4.01,
      text: `s${i}${i % 5 === 4 ? '.' : ''}`,
    }));
    const chunks = transcriptChunks(segs, 30, 60);
    for (const c of chunks) {
      if (c.anchor.kind !== 'time') throw new Error('not a time anchor');
      expect(c.anchor.end - c.anchor.start).toBeLessThanOrEqual(60.5);
      expect(Number.isInteger(c.anchor.start * 10 + 1e-9) || Math.abs(c.anchor.start * 10 - Math.round(c.anchor.start * 10)) < 1e-9).toBe(
        true,
      );
    }
    // Every chunk but the last ends a sentence; together they hold every segment once, in order.
    expect(chunks.slice(0, -1).every((c) => c.text.endsWith('.'))).toBe(true);
    expect(chunks.map((c) => c.text).join(' ')).toBe(segs.map((s) => s.text).join(' '));
  });
});

describe.skipIf(!corpora || !hasFfmpeg)('audio in the index (transcriber double)', () => {
  it('waits for a speech model, saying how to get one; once there, transcribes, chunks and cites time ranges', async () => {
    const dir = await tempDir();
    copyFileSync(audio('bernie30s.wav'), join(dir, 'talk.wav'));
    const data = join(dir, 'data');
    // No speech model: the file is added, and waits.
    const before = await engineIn(data);
    const finished: unknown[] = [];
    const s1 = await before.ingest([join(dir, 'talk.wav')], { onProgress: (p) => void (p.finished && finished.push(p.finished)) });
    expect(s1).toMatchObject({ added: 1, transcribed: { files: 0, waiting: 1 } });
    // The list of files says it waits, and for what: never a ✓ for words nobody can find yet.
    expect(finished).toEqual([
      { path: join(dir, 'talk.wav'), outcome: 'waiting', message: expect.stringMatching(/^waiting for a speech model/) },
    ]);
    const waiting = (await before.list())[0]!;
    expect(waiting).toMatchObject({
      type: 'audio',
      status: 'waiting',
      error: 'waiting for a speech model: run kb models pull whisper-base.en (or kb models import FILE)',
      chunks: 0,
    });
    before.close();

    // A speech model now: the waiting file is transcribed on the next pass.
    const calls: { samples: number }[] = [];
    const engine = await engineIn(data, { audio: { window_s: 30 } }, { transcriber: fakeTranscriber(calls) });
    const t = await engine.transcribePending();
    expect(t).toEqual({ files: 1, failed: 0, pending: 0, waiting: 0 });
    expect(calls.reduce((n, c) => n + c.samples, 0)).toBe(30 * SAMPLE_RATE);
    const doc = await engine.inspectDoc(join(dir, 'talk.wav'));
    expect(doc.document).toMatchObject({ type: 'audio', status: 'indexed', error: null, duration: 30 });
    expect(doc.transcript).toMatchObject({ status: 'done', language: 'en' });
    expect(doc.transcript!.text!.split('\n')[0]).toBe('[0:00.0–0:04.0] walrus words part 0');
    const r = await engine.search({ query: 'walrus part 24', mode: 'lexical', top: 3 });
    const c = r.results[0]!.citation;
    expect(c.kind).toBe('time');
    if (c.kind !== 'time') return;
    expect(c.uri).toMatch(/talk\.wav#t=\d+(\.\d)?,\d+(\.\d)?$/);
    expect(c.start).toBeLessThanOrEqual(24);
    expect(c.end).toBeGreaterThanOrEqual(28);
    expect(c.label).toMatch(/^talk\.wav · 0:\d\d–0:\d\d$/);
    expect((await engine.list())[0]!.status).toBe('indexed');
  });

  it('never transcribes a recording edited after it was indexed under the old version (no copy kept)', async () => {
    const dir = await tempDir();
    copyFileSync(audio('bernie30s.wav'), join(dir, 'talk.wav'));
    const data = join(dir, 'data');
    const before = await engineIn(data, { store_originals: 'reference' });
    expect(await before.ingest([join(dir, 'talk.wav')])).toMatchObject({ added: 1, transcribed: { waiting: 1 } });
    before.close();
    // Edited while it waited for a speech model: other sound under the same name.
    copyFileSync(audio('jfk.wav'), join(dir, 'talk.wav'));
    const calls: { samples: number }[] = [];
    const engine = await engineIn(data, { store_originals: 'reference' }, { transcriber: fakeTranscriber(calls) });
    expect(await engine.transcribePending()).toMatchObject({ files: 0, failed: 1 });
    expect(calls).toEqual([]);
    expect((await engine.inspectDoc(join(dir, 'talk.wav'))).transcript).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/VANISHED: .*changed since it was indexed/),
    });
    // The next ingest takes the new recording, under its own hash, and transcribes it.
    expect(await engine.ingest([join(dir, 'talk.wav')])).toMatchObject({ updated: 1, transcribed: { files: 1 } });
    expect(calls.reduce((n, c) => n + c.samples, 0)).toBe(176000);
  });

  it('reads a long file a window at a time', async () => {
    const dir = await tempDir();
    // 10 minutes of generated sound (a tone): the double is handed 60 s windows, never the whole.
    execFileSync(findFfmpeg(''), [
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=440:duration=600',
      '-ac',
      '1',
      '-ar',
      '16000',
      join(dir, 'long.ogg'),
    ]);
    const calls: { samples: number }[] = [];
    const engine = await engineIn(join(dir, 'data'), { audio: { window_s: 60 } }, { transcriber: fakeTranscriber(calls) });
    const progress: number[] = [];
    const s = await engine.ingest([join(dir, 'long.ogg')], { onProgress: (p) => p.phase === 'transcribe' && progress.push(p.done) });
    expect(s.transcribed).toMatchObject({ files: 1, failed: 0 });
    expect(calls).toHaveLength(10);
    expect(Math.max(...calls.map((c) => c.samples))).toBe(60 * SAMPLE_RATE);
    expect(progress.at(-1)).toBe(600);
    const chunks = (await engine.inspectDoc(join(dir, 'long.ogg'))).chunks;
    expect(chunks.length).toBeGreaterThanOrEqual(10);
  });
});

describe.skipIf(!corpora || !hasFfmpeg)('the real whisper path (smart-whisper, no weights)', () => {
  it('rejects a random file and a truncated one before anything loads them', async () => {
    const dir = await tempDir();
    writeFileSync(join(dir, 'random.bin'), Buffer.from(Array.from({ length: 100_000 }, (_, i) => (i * 31) & 0xff)));
    await expect(validateWhisperFile(join(dir, 'random.bin'))).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/not a whisper\.cpp model/),
    });
    ggmlFile(join(dir, 'truncated.bin'), 1_000_000);
    await expect(validateWhisperFile(join(dir, 'truncated.bin'))).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/truncated/),
    });
    await expect(WhisperProcess.open(join(dir, 'truncated.bin'))).rejects.toMatchObject({ code: 'MODEL_INVALID' });
    await expect(WhisperProcess.open(join(dir, 'missing.bin'))).rejects.toMatchObject({ code: 'MODEL_MISSING' });
  });

  it('a speech model that crashes whisper is one document’s clear error; the engine answers on', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    copyFileSync(audio('jfk.wav'), join(dir, 'jfk.wav'));
    writeFileSync(join(dir, 'notes.md'), '# Notes\n\nthe heron is still searchable\n');
    // Whole-sized and with a plausible header, but garbage inside: it passes the checks, and whisper.cpp fails on it.
    mkdirSync(join(data, 'models', 'whisper'), { recursive: true });
    ggmlFile(whisperModelFile(data, 'whisper-tiny.en'), 80_000_000);
    const engine = await engineIn(data, { audio: { model: 'whisper-tiny.en' } });
    const s = await engine.ingest([dir]);
    // The recording could not be heard: it counts as failed, not added.
    expect(s).toMatchObject({ added: 1, failed: 1 });
    const err = s.errors.find((e) => e.path.endsWith('jfk.wav'));
    console.log('whisper on a garbage model:', err?.code, err?.message);
    expect(err?.code).toMatch(/TRANSCRIPTION_FAILED|MODEL_INVALID/);
    expect(err?.message).toMatch(/speech model stopped|whisper could not load/);
    // The engine is fine: search answers, the notes are there, the audio document says what happened.
    expect((await engine.search({ query: 'heron', mode: 'lexical' })).results[0]!.citation.path).toBe(join(dir, 'notes.md'));
    const doc = (await engine.list()).find((d) => d.path.endsWith('jfk.wav'))!;
    expect(['failed', 'indexed', 'waiting']).toContain(doc.status);
    expect((await engine.inspectDoc(join(dir, 'jfk.wav'))).transcript?.status).toMatch(/failed|pending/);
  }, 60_000);

  it('kb ls shows an audio file waiting for a speech model, with the command to get one', async () => {
    const dir = await tempDir();
    copyFileSync(audio('jfk.mp3'), join(dir, 'jfk.mp3'));
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'jfk.mp3')], { env }).code).toBe(0);
    const ls = kb(['ls'], { env });
    expect(ls.stdout).toMatch(/waiting/);
    expect(ls.stdout).toMatch(/kb models pull whisper-base\.en/);
    expect(existsSync(join(dir, 'data', 'blobs'))).toBe(true);
  });
});

describe.skipIf(!corpora || !hasFfmpeg)('speech models (kb models)', () => {
  it('pulls from the hub, but installs nothing whose checksum is not the published one', async () => {
    const dir = await tempDir();
    ggmlFile(join(dir, 'ggml-tiny.en.bin'), 80_000_000);
    const { createServer } = await import('node:http');
    const { createReadStream, statSync } = await import('node:fs');
    const served: string[] = [];
    const hub = createServer((req, res) => {
      served.push(req.url ?? '');
      if (req.url !== '/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': String(statSync(join(dir, 'ggml-tiny.en.bin')).size) });
      createReadStream(join(dir, 'ggml-tiny.en.bin')).pipe(res);
    });
    await new Promise<void>((r) => hub.listen(0, '127.0.0.1', () => r()));
    const port = (hub.address() as { port: number }).port;
    try {
      const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml'), KB_HF_ENDPOINT: `http://127.0.0.1:${port}` };
      const { kbAsync } = await import('./helpers.js');
      const pulled = await kbAsync(['models', 'pull', 'whisper-tiny.en'], { env });
      expect(pulled.code).toBe(1);
      expect(pulled.stderr).toMatch(/is not whisper-tiny\.en: its SHA-1 is [0-9a-f]{12}…, whisper\.cpp publishes c78c86eb1a8f…/);
      expect(served).toEqual(['/ggerganov/whisper.cpp/resolve/main/ggml-tiny.en.bin']);
      expect(existsSync(whisperModelFile(join(dir, 'data'), 'whisper-tiny.en'))).toBe(false);
      const unknown = await kbAsync(['models', 'pull', 'whisper-huge'], { env });
      expect(unknown.stderr).toMatch(
        /unknown model whisper-huge\. Embedding models .*Speech models \(audio and video\): whisper-tiny\.en, /,
      );
    } finally {
      hub.close();
    }
  }, 60_000);

  it('imports a model file under a name, lists it, and reads what waited for it (here: the file crashes whisper, and says so)', async () => {
    const dir = await tempDir();
    copyFileSync(audio('jfk.wav'), join(dir, 'jfk.wav'));
    ggmlFile(join(dir, 'model.bin'), 80_000_000);
    writeFileSync(join(dir, 'random.bin'), Buffer.alloc(100_000, 7));
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'jfk.wav')], { env }).code).toBe(0);
    const bad = kb(['models', 'import', join(dir, 'random.bin'), '--as', 'whisper-custom'], { env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not a whisper\.cpp model/);
    const unnamed = kb(['models', 'import', join(dir, 'model.bin')], { env });
    expect(unnamed.stderr).toMatch(/not one of the models kb knows by checksum: name it with --as whisper-<name>/);
    // Named for a model kb knows, a file of other bytes is refused, naming the user's file (not kb's copy of it).
    const misnamed = kb(['models', 'import', join(dir, 'model.bin'), '--as', 'whisper-base'], { env });
    expect(misnamed.code).toBe(1);
    expect(misnamed.stderr).toContain(`${join(dir, 'model.bin')} is not whisper-base: its SHA-1 is`);
    expect(misnamed.stderr).not.toMatch(/\.partial/);
    // The configured speech model is whisper-base.en: import under that name is refused (wrong checksum), under another it installs.
    writeFileSync(join(dir, 'data', 'config.yaml'), 'audio:\n  model: whisper-custom\n');
    const ok = kb(['models', 'import', join(dir, 'model.bin'), '--as', 'whisper-custom'], { env });
    expect(ok.stdout).toMatch(/Imported whisper-custom/);
    expect(ok.stdout).toMatch(/Transcribed 0 audio files that waited for a speech model; 1 failed \(kb ls shows why\)/);
    expect(kb(['models', 'list'], { env }).stdout).toMatch(/whisper-custom\s+imported\s+installed 80\.0 MB/);
    const ls = kb(['ls'], { env }).stdout;
    expect(ls).toMatch(/TRANSCRIPTION_FAILED: the speech model stopped \(SIGSEGV\)/);
    // kb models use takes a speech model too: it becomes audio.model; one not installed is refused.
    const missing = kb(['models', 'use', 'whisper-nothere'], { env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/whisper-nothere is not installed — run: kb models pull whisper-nothere/);
    writeFileSync(join(dir, 'data', 'config.yaml'), 'audio:\n  model: whisper-base.en\n');
    const used = kb(['models', 'use', 'whisper-custom'], { env });
    expect(used.code).toBe(0);
    expect(used.stdout).toMatch(/Recordings are transcribed with whisper-custom/);
    expect(readFileSync(join(dir, 'data', 'config.yaml'), 'utf8')).toMatch(/model: whisper-custom/);
  }, 60_000);
});
