// Passage embedding on a thread of its own (see embed-thread.ts). Queries stay on the engine's thread:
// one short text costs a few ms, and waiting behind a passage batch would cost more.
import { Worker } from 'node:worker_threads';
import { KbError, type ErrorCode } from '../../shared/errors.js';
import { threadEntry } from '../threads.js';
import { searchCounter } from '../search-traffic.js';
import type { EmbeddingSpec } from './spec.js';
import type { PassageEmbedder } from './provider.js';

interface Pending {
  resolve: (v: Float32Array[]) => void;
  reject: (e: Error) => void;
}

export class ThreadedEmbedder implements PassageEmbedder {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failed: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: { id: number; vectors?: Float32Array[]; error?: { code: ErrorCode; message: string } }) => {
      const p = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (this.pending.size === 0) worker.unref(); // idle: must not keep the process alive
      if (!p) return;
      if (m.vectors) p.resolve(m.vectors);
      else p.reject(new KbError(m.error?.code ?? 'INTERNAL', m.error?.message ?? 'the embedding thread failed'));
    });
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`the embedding thread exited with code ${code}`));
    });
    worker.unref();
  }

  /**
   * A thread running the same model as `embedder` (its folder and spec); without a thread to start,
   * `embedder` itself.
   */
  static for(embedder: { dir: string; spec: EmbeddingSpec; embed: PassageEmbedder['embed'] }): PassageEmbedder {
    const entry = threadEntry('embed/embed-thread');
    if (!entry) return { embed: (t, k) => embedder.embed(t, k), close: async () => undefined };
    return new ThreadedEmbedder(
      new Worker(entry.url, {
        execArgv: entry.execArgv,
        workerData: { dir: embedder.dir, spec: embedder.spec, searches: searchCounter() },
      }),
    );
  }

  private fail(e: Error): void {
    this.failed = e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.ref();
      this.worker.postMessage({ id, texts, kind });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
