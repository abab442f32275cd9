// Speech → timestamped text. `Transcriber` is what the transcription pass uses; `WhisperProcess` is the
// real one, whisper.cpp in a child process (whisper-child.ts) so that a crash in native code becomes an
// error for one document while the engine lives on. Tests give the pass a double that returns known
// segments (no whisper weights can be had on the build machines).
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { KbError } from '../../shared/errors.js';
import { threadEntry } from '../threads.js';
import type { ChildReply, ChildRequest, Segment } from './whisper-protocol.js';
import { validateWhisperFile } from './whisper-models.js';

export type { Segment } from './whisper-protocol.js';

export interface Transcriber {
  /** Segments of one window of 16 kHz mono audio, timed from the window's start. */
  transcribe(pcm: Float32Array, language: string): Promise<{ segments: Segment[]; language: string | null }>;
  close(): void;
}

export class WhisperProcess implements Transcriber {
  private child: ChildProcess | null = null;
  private ready: Promise<void> | null = null;
  private next = 1;
  private readonly waiting = new Map<
    number,
    { resolve: (r: { segments: Segment[]; language: string | null }) => void; reject: (e: Error) => void }
  >();

  private constructor(private readonly model: string) {}

  /** Validates the model file first: whisper.cpp must never be handed a bad one. */
  static async open(model: string): Promise<WhisperProcess> {
    await validateWhisperFile(model);
    return new WhisperProcess(model);
  }

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const entry = threadEntry('audio/whisper-child', 'whisper-child');
    if (!entry) throw new KbError('INTERNAL', 'the whisper child is not built: run npm run build');
    const child = fork(fileURLToPath(entry.url), [], {
      execArgv: entry.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      child.on('message', (raw: unknown) => {
        const m = raw as ChildReply;
        if (m.type === 'loaded') return resolve();
        if (m.type === 'error' && m.id === undefined)
          return reject(new KbError('MODEL_INVALID', `whisper could not load ${this.model}: ${m.message}`));
        const w = m.id === undefined ? undefined : this.waiting.get(m.id);
        if (!w || m.id === undefined) return;
        this.waiting.delete(m.id);
        if (m.type === 'segments') w.resolve({ segments: m.segments, language: m.language });
        else w.reject(new KbError('TRANSCRIPTION_FAILED', `whisper failed: ${m.message}`));
      });
      child.on('exit', (code, signal) => {
        if (this.child !== child) return;
        this.child = null;
        this.ready = null;
        const last = stderr.trim().split('\n').filter(Boolean).pop();
        const err = new KbError(
          'TRANSCRIPTION_FAILED',
          `the speech model stopped (${signal ?? `exit code ${code}`}) while reading this file${last ? `: ${last.slice(0, 200)}` : ''}`,
        );
        reject(err);
        for (const w of this.waiting.values()) w.reject(err);
        this.waiting.clear();
      });
    });
    child.send({ type: 'load', model: this.model } satisfies ChildRequest);
    return this.ready;
  }

  async transcribe(pcm: Float32Array, language: string): Promise<{ segments: Segment[]; language: string | null }> {
    await this.start();
    const child = this.child;
    if (!child) throw new KbError('TRANSCRIPTION_FAILED', 'the speech model is not running');
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // whisper's threads: all cores but one, so the engine keeps answering searches.
      const threads = Math.max(1, availableParallelism() - 1);
      child.send({ type: 'transcribe', id, pcm, language, threads } satisfies ChildRequest);
    });
  }

  close(): void {
    const c = this.child;
    this.child = null;
    this.ready = null;
    c?.kill();
  }
}
