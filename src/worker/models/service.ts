// Models as the engine offers them: embedding models (models/<id>) and speech models, listed, pulled
// from the hub, imported from a folder or file, removed. The stores (and onnxruntime) load only when
// a models command runs.
import { join, resolve } from 'node:path';
import { type IngestProgress, type ReindexProgress, SCHEMA_VERSION, type Transcribed } from '../../shared/wire.js';
import { KbError } from '../../shared/errors.js';
import type { Core } from '../core.js';
import { embeddingRef } from '../embed/spec.js';
import type { SpeechService } from '../ingest/speech/speech.js';
import type { SpeechModelInfo, WhisperStore } from './speech-store.js';
import type { FileProgress } from '../embed/download.js';
import type { ModelInfo, ModelStore } from './embedding-store.js';
import type { Hub } from './offline-help.js';

export function isSpeechModel(name: string): boolean {
  return name.startsWith('whisper-');
}

type PullOptions = { onProgress?: (p: FileProgress) => void; signal?: AbortSignal };

export class ModelService {
  constructor(
    private readonly core: Core,
    private readonly speech: SpeechService,
  ) {}

  private async embeddingStore(): Promise<ModelStore> {
    const { ModelStore } = await import('./embedding-store.js');
    return new ModelStore(join(this.core.dataDir, 'models'));
  }

  private async speechStore(): Promise<WhisperStore> {
    const { WhisperStore } = await import('./speech-store.js');
    return new WhisperStore(this.core.dataDir);
  }

  /** The hub address: models.hub_endpoint (KB_HF_ENDPOINT folded in), and whether a variable set it. */
  private hub(): Hub {
    return { url: this.core.config.models.hub_endpoint, setBy: this.core.fromEnv['models.hub_endpoint'] };
  }

  async list(): Promise<{ schema_version: typeof SCHEMA_VERSION; models: ModelInfo[]; speech_models: SpeechModelInfo[] }> {
    return {
      schema_version: SCHEMA_VERSION,
      models: (await this.embeddingStore()).list(),
      speech_models: (await this.speechStore()).list(),
    };
  }

  async pull(id: string, opts: PullOptions = {}): Promise<ModelInfo> {
    return (await this.embeddingStore()).pull(id, this.hub(), opts);
  }

  async import(dir: string, id: string): Promise<ModelInfo> {
    return (await this.embeddingStore()).import(resolve(dir), id);
  }

  async remove(id: string): Promise<void> {
    await (await this.embeddingStore()).remove(id);
  }

  /** Speech models (whisper-…): from the hub, checked against whisper.cpp's published SHA-1. */
  async pullSpeech(name: string, opts: PullOptions = {}): Promise<SpeechModelInfo> {
    return (await this.speechStore()).pull(name, this.hub(), opts);
  }

  async importSpeech(file: string, as?: string): Promise<SpeechModelInfo> {
    return (await this.speechStore()).import(resolve(file), as);
  }

  /** A speech model by its whisper- name, else an embedding model: what kb models pull and the app's Models view take. */
  pullAny(name: string, opts: PullOptions = {}): Promise<ModelInfo | SpeechModelInfo> {
    return isSpeechModel(name) ? this.pullSpeech(name, opts) : this.pull(name, opts);
  }

  /** A file is a speech model (whisper.cpp ggml); a folder an embedding model (Hugging Face layout). */
  async importAny(path: string, as: string | undefined, defaultEmbedding: string): Promise<ModelInfo | SpeechModelInfo> {
    const { stat } = await import('node:fs/promises');
    const isFile = await stat(resolve(path)).then(
      (s) => s.isFile(),
      () => false,
    );
    return isFile ? this.importSpeech(path, as) : this.import(path, as ?? defaultEmbedding);
  }

  async removeAny(name: string): Promise<void> {
    if (isSpeechModel(name)) await this.removeSpeech(name);
    else await this.remove(name);
  }

  async arrived(
    name: string,
    run: {
      reindex: (o: { onProgress?: (p: ReindexProgress) => void }) => Promise<unknown>;
      transcribe: (o: { onProgress?: (p: IngestProgress) => void }) => Promise<Transcribed>;
    },
    opts: { onVectors?: (p: ReindexProgress) => void; onAudio?: (p: IngestProgress) => void },
  ): Promise<{ task: 'transcribing'; transcribed: Transcribed } | { task: 'embedding' } | null> {
    const { config } = this.core;
    if (isSpeechModel(name)) {
      if (name !== config.audio.model || !this.speech.ready()) return null;
      return { task: 'transcribing', transcribed: await run.transcribe(opts.onAudio ? { onProgress: opts.onAudio } : {}) };
    }
    if (name !== embeddingRef(config.embedding)) return null;
    await run.reindex(opts.onVectors ? { onProgress: opts.onVectors } : {});
    return { task: 'embedding' };
  }

  /** Before kb models use makes it the speech model: it is installed (its file was checked when it came in). */
  async checkSpeech(name: string): Promise<void> {
    const info = (await this.speechStore()).list().find((m) => m.id === name);
    if (!info?.installed)
      throw new KbError('MODEL_MISSING', `${name} is not installed — run: kb models pull ${name} (or kb models import FILE --as ${name})`);
  }

  /** Is `name` a reranker (the registry's, or a cross-encoder folder imported under that name)? */
  async isReranker(name: string): Promise<boolean> {
    return (await this.embeddingStore()).list().some((m) => m.id === name && m.kind === 'reranker');
  }

  /** Before kb models use makes it the reranker: it is installed, and it loads. */
  async checkReranker(name: string): Promise<void> {
    const store = await this.embeddingStore();
    const info = store.list().find((m) => m.id === name && m.kind === 'reranker');
    if (!info) throw new KbError('INVALID_ARGUMENT', `${name} is not a reranker kb has`);
    if (!info.installed) throw new KbError('MODEL_MISSING', `${name} is not installed — run: kb models pull ${name}`);
    const { CrossEncoder } = await import('../embed/cross-encoder.js');
    await (await CrossEncoder.load(store.pathOf(name), name, info.max_tokens)).close();
  }

  async removeSpeech(name: string): Promise<void> {
    this.speech.release();
    await (await this.speechStore()).remove(name);
  }
}
