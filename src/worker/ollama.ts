// Talking to a local Ollama server (the `ollama` client, configured with new Ollama({ host }): its
// default export ignores OLLAMA_HOST). Every call takes an AbortSignal that also covers the wait for
// response headers (the client's own abort only reaches a stream once it has started), and every
// failure becomes an error that says what to do: start the server, pull the model.
import { Ollama } from 'ollama';
import { KbError } from '../shared/errors.js';
import type { OllamaStatus } from '../shared/settings.js';

/** One message of a chat, as Ollama takes it. */
export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** fetch's own network failure (nothing listening, unknown host, a refused port): not an HTTP answer. */
export function networkFailure(e: unknown): { refused: boolean; detail: string } | null {
  if (!(e instanceof TypeError) || e.message !== 'fetch failed') return null;
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return { refused: cause?.code === 'ECONNREFUSED', detail: cause?.message ?? 'network error' };
}

const SHOW_TIMEOUT_MS = 10_000;

export class OllamaClient {
  private readonly contexts = new Map<string, Promise<number | null>>();

  constructor(
    readonly host: string,
    readonly model: string,
  ) {}

  private client(signal?: AbortSignal): Ollama {
    return new Ollama({
      host: this.host,
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          signal: signal && init?.signal ? AbortSignal.any([init.signal, signal]) : (signal ?? init?.signal ?? null),
        }),
    });
  }

  /** The model's context length from /api/show (`<arch>.context_length`), or null when it does not say. Cached. */
  contextLength(signal?: AbortSignal): Promise<number | null> {
    let p = this.contexts.get(this.model);
    if (!p) {
      // A server that accepts the connection but never answers must not hold a question forever.
      const limit = AbortSignal.timeout(SHOW_TIMEOUT_MS);
      p = this.client(signal ? AbortSignal.any([signal, limit]) : limit)
        .show({ model: this.model })
        .then((r) => {
          const info = r.model_info instanceof Map ? Object.fromEntries(r.model_info) : ((r.model_info ?? {}) as Record<string, unknown>);
          const key = Object.keys(info).find((k) => k.endsWith('.context_length'));
          const n = key ? Number(info[key]) : NaN;
          return Number.isFinite(n) && n > 0 ? n : null;
        });
      p.catch(() => this.contexts.delete(this.model));
      this.contexts.set(this.model, p);
    }
    return p.catch((e: unknown) => this.explain(e));
  }

  /** For kb doctor: is the server there (its version), and is the model pulled? Never throws. */
  async status(): Promise<{ status: 'ok' | 'warn'; detail: string }> {
    const signal = AbortSignal.timeout(3000);
    try {
      const c = this.client(signal);
      const { version } = await c.version();
      const { models } = await c.list();
      const have = models.some((m) => m.name === this.model || m.name === `${this.model}:latest` || m.model === this.model);
      return have
        ? { status: 'ok', detail: `Ollama ${version} at ${this.host}; ${this.model} is pulled` }
        : {
            status: 'warn',
            detail: `Ollama ${version} at ${this.host}, but ${this.model} is not pulled (run: ollama pull ${this.model}); kb ask shows sources only`,
          };
    } catch (e) {
      const why = await this.explain(e).catch((x: unknown) => (x as Error).message);
      return { status: 'warn', detail: `${why}; kb ask shows sources only` };
    }
  }

  /** For the app's Settings and first run: the server, its models, and the exact next step. Never throws. */
  async inventory(): Promise<OllamaStatus> {
    const signal = AbortSignal.timeout(3000);
    const base = { host: this.host, model: this.model };
    try {
      const c = this.client(signal);
      const { version } = await c.version();
      const models = (await c.list()).models.map((m) => m.name).sort();
      const pulled = models.some((m) => m === this.model || m === `${this.model}:latest`);
      return {
        ...base,
        reachable: true,
        version,
        models,
        model_pulled: pulled,
        detail: pulled
          ? `Ollama ${version} is running and has ${this.model}`
          : `Ollama ${version} is running, but ${this.model} is not pulled: run ollama pull ${this.model}, or pick one of its models`,
      };
    } catch (e) {
      const why = await this.explain(e).catch((x: unknown) => (x as Error).message);
      const install = `Not installed? Get it from https://ollama.com/download, then run: ollama pull ${this.model}`;
      return { ...base, reachable: false, version: null, models: [], model_pulled: false, detail: `${why}. ${install}` };
    }
  }

  /** The answer's text as it streams. */
  async *chat(messages: ChatMessage[], options: { num_ctx: number; num_predict: number }, signal: AbortSignal): AsyncGenerator<string> {
    let stream: AsyncIterable<{ message?: { content?: string }; done?: boolean }>;
    try {
      stream = await this.client(signal).chat({ model: this.model, messages, stream: true, options });
    } catch (e) {
      stream = await this.explain(e);
    }
    try {
      for await (const part of stream) {
        const text = part.message?.content ?? '';
        if (text) yield text;
      }
    } catch (e) {
      if (signal.aborted) throw e;
      throw new KbError('LLM_FAILED', `Ollama stopped in the middle of the answer: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Turns a failure into a KbError that says what to do (never returns). */
  private async explain(e: unknown): Promise<never> {
    if (e instanceof KbError) throw e;
    if ((e as Error).name === 'TimeoutError') {
      throw new KbError(
        'LLM_UNAVAILABLE',
        `Ollama at ${this.host} did not answer within ${SHOW_TIMEOUT_MS / 1000} s. Is it running? Start it with: ollama serve`,
        { cause: e },
      );
    }
    if ((e as Error).name === 'AbortError') throw e;
    const net = networkFailure(e);
    if (net?.refused) {
      throw new KbError(
        'LLM_UNAVAILABLE',
        `Ollama is not running at ${this.host}. Start it with: ollama serve (or point KB_OLLAMA_HOST / ask.ollama_host at it)`,
        { cause: e },
      );
    }
    if (net) {
      throw new KbError(
        'LLM_UNAVAILABLE',
        `Ollama cannot be reached at ${this.host} (${net.detail}). Start it with: ollama serve, or set KB_OLLAMA_HOST / ask.ollama_host to where it runs`,
        { cause: e },
      );
    }
    const status = (e as { status_code?: number }).status_code;
    if (status === 404) {
      let pulled = '';
      try {
        const { models } = await this.client().list();
        pulled = models.length ? `Pulled: ${models.map((m) => m.name).join(', ')}. ` : 'No model is pulled yet. ';
      } catch {
        // the list is a courtesy; the missing model is the message
      }
      throw new KbError(
        'MODEL_MISSING',
        `The Ollama model "${this.model}" is not pulled. ${pulled}Get it with: ollama pull ${this.model} (or choose another with KB_OLLAMA_MODEL / ask.model)`,
        { cause: e },
      );
    }
    throw new KbError('LLM_FAILED', `Ollama failed: ${(e as Error).message}`, { cause: e });
  }
}

/** The Ollama host and model of the config (KB_OLLAMA_HOST / KB_OLLAMA_MODEL folded in: config/env.ts). */
export function ollamaFor(config: { ollama_host: string; model: string }): OllamaClient {
  return new OllamaClient(config.ollama_host, config.model);
}
