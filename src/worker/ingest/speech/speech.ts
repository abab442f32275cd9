// The speech side as the engine uses it: whether audio can be transcribed now, the whisper child
// started on first need (and restarted after a model is installed), and the transcription pass.
import { existsSync } from 'node:fs';
import type { IngestProgress } from '../../../shared/wire.js';
import type { Core } from '../../core.js';
import type { TranscribePassResult } from './pass.js';
import type { Transcriber } from '../../audio/transcriber.js';
import { whisperModelFile } from '../../audio/whisper-models.js';

export class SpeechService {
  private transcriberP?: Promise<Transcriber>;

  constructor(
    private readonly core: Core,
    /** Tests give a double that returns known segments: no whisper weights exist here. */
    private readonly makeTranscriber?: () => Transcriber,
  ) {}

  /** Whether audio can be transcribed now: a test double, or the configured speech model's file. */
  ready(): boolean {
    return Boolean(this.makeTranscriber) || existsSync(whisperModelFile(this.core.dataDir, this.core.config.audio.model));
  }

  private transcriber(): Promise<Transcriber> {
    const { dataDir, config } = this.core;
    const p = (this.transcriberP ??= this.makeTranscriber
      ? Promise.resolve(this.makeTranscriber())
      : import('../../audio/transcriber.js').then((m) => m.WhisperProcess.open(whisperModelFile(dataDir, config.audio.model))));
    p.catch(() => {
      if (this.transcriberP === p) this.transcriberP = undefined; // a model may be installed later
    });
    return p;
  }

  /** Transcribes what is queued; what waited for a speech model is queued first if one is there now. */
  async runPass(opts: { signal?: AbortSignal; onProgress?: (p: IngestProgress) => void }): Promise<TranscribePassResult> {
    const { runTranscription } = await import('./pass.js');
    const { store, blobs, config } = this.core;
    if (this.ready()) await store.tables.transcripts.wake();
    const result = await runTranscription(
      { store, blobs, config, model: this.makeTranscriber ? 'test' : config.audio.model, transcriber: () => this.transcriber() },
      opts,
    );
    this.core.wordsChanged();
    return result;
  }

  /** Stops the whisper child (a speech model is being removed or replaced). */
  release(): void {
    void this.transcriberP?.then(
      (t) => t.close(),
      () => undefined,
    );
    this.transcriberP = undefined;
  }
}
