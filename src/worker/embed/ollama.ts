// Embeddings from the local Ollama server (/api/embed, a batch of texts a request), for people who
// already run it for the ask panel: nomic-embed-text, mxbai-embed-large, bge-m3, embeddinggemma, …
// Ollama adds no query/document prefix itself, so kb does (registry.ts OLLAMA_PREFIXES), and it says a
// model's dimension only by embedding something: one probe when the model is opened.
import { KbError } from '../../shared/errors.js';
import { networkFailure } from '../ollama.js';
import type { PassageEmbedder, TextEmbedder } from './provider.js';
import { type EmbeddingSpec, ollamaModelOf } from './spec.js';

/** Texts a request: big enough that HTTP costs nothing beside the model, small enough to stop promptly. */
export const OLLAMA_BATCH = 64;
/** A request may wait for the model to load into memory first. */
const REQUEST_TIMEOUT_MS = 300_000;

export class OllamaEmbedder implements TextEmbedder {
  private readonly endpoint: string;

  private constructor(
    readonly spec: EmbeddingSpec,
    readonly host: string,
    private readonly model: string,
  ) {
    // OLLAMA_HOST is often written without a scheme (localhost:11434), as Ollama itself accepts it.
    this.endpoint = `${/^https?:\/\//.test(host) ? host : `http://${host}`}`.replace(/\/+$/, '') + '/api/embed';
  }

  /** Opens the model on the server: one probe, which gives the dimension and says if anything is wrong. */
  static async open(host: string, spec: EmbeddingSpec): Promise<OllamaEmbedder> {
    const e = new OllamaEmbedder(spec, host, ollamaModelOf(spec.id) ?? spec.id);
    const [probe] = await e.embed(['dimension check'], 'passage');
    if (!probe || probe.length === 0) throw new KbError('MODEL_INVALID', `Ollama's ${e.model} gave no vector: is it an embedding model?`);
    if (spec.dimension > 0 && probe.length !== spec.dimension) {
      throw new KbError('MODEL_INVALID', `Ollama's ${e.model} now gives ${probe.length}-dimensional vectors, not ${spec.dimension}`);
    }
    return new OllamaEmbedder({ ...spec, dimension: probe.length }, host, e.model);
  }

  get dimension(): number {
    return this.spec.dimension;
  }

  async embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.spec.queryPrefix : this.spec.passagePrefix;
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += OLLAMA_BATCH) {
      const batch = texts.slice(i, i + OLLAMA_BATCH);
      out.push(...(await this.request(prefix ? batch.map((t) => prefix + t) : batch)));
    }
    return out;
  }

  /**
   * One /api/embed call: the texts as given, truncated by the server to the model's context. A plain
   * fetch, not the ollama client the ask side uses: its extra headers and checks cost ~5% of a batch
   * when the server is fast (npm run bench -- embed).
   */
  async request(input: string[]): Promise<Float32Array[]> {
    let r: { embeddings?: number[][] };
    try {
      const res = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: this.model, input, truncate: true }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      if (!res.ok) {
        const text = await res.text();
        const message = ((): string => {
          try {
            return String((JSON.parse(text) as { error?: unknown }).error ?? text);
          } catch {
            return text || `HTTP ${res.status}`;
          }
        })();
        throw Object.assign(new Error(message), { status_code: res.status });
      }
      r = (await res.json()) as { embeddings?: number[][] };
    } catch (e) {
      throw this.explain(e);
    }
    if (!Array.isArray(r.embeddings) || r.embeddings.length !== input.length) {
      throw new KbError('LLM_FAILED', `Ollama answered ${r.embeddings?.length ?? 0} vectors for ${input.length} texts`);
    }
    return r.embeddings.map((v) => new Float32Array(v));
  }

  /** The server itself embeds passages: no thread of kb's is needed to keep the engine free. */
  async passages(): Promise<PassageEmbedder> {
    return { embed: (t, k) => this.embed(t, k), close: async () => undefined };
  }

  /** Ollama does not show its tokenizer: every unknown word is corrected as a slip. */
  knowsWord(): boolean {
    return false;
  }

  async close(): Promise<void> {
    // Nothing held: each request is its own connection.
  }

  /** A failure as what to do: start the server, pull the model. */
  private explain(e: unknown): Error {
    if (e instanceof KbError) return e;
    const err = e as Error;
    if (err.name === 'TimeoutError')
      return new KbError('LLM_UNAVAILABLE', `Ollama at ${this.host} did not embed within ${REQUEST_TIMEOUT_MS / 1000} s`, { cause: e });
    if (err.name === 'AbortError') return err;
    const net = networkFailure(e);
    if (net) {
      const why = net.refused ? `Ollama is not running at ${this.host}` : `Ollama cannot be reached at ${this.host} (${net.detail})`;
      return new KbError(
        'LLM_UNAVAILABLE',
        `${why}: start it (ollama serve), or set ask.ollama_host / KB_OLLAMA_HOST; searching by words meanwhile`,
        { cause: e },
      );
    }
    const status = (e as { status_code?: number }).status_code;
    if (status === 404 || /not found/i.test(err.message)) {
      return new KbError('MODEL_MISSING', `Ollama does not have ${this.model}: run ollama pull ${this.model}`, { cause: e });
    }
    if (/does not support embeddings|not an embedding/i.test(err.message)) {
      return new KbError(
        'MODEL_INVALID',
        `Ollama's ${this.model} does not make embeddings (${err.message}): choose an embedding model, e.g. ollama:nomic-embed-text`,
        { cause: e },
      );
    }
    return new KbError('LLM_FAILED', `Ollama failed to embed with ${this.model}: ${err.message}`, { cause: e });
  }
}
