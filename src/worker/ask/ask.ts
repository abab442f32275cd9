// Ask: a grounded answer from the user's documents. Retrieve (hybrid search), refuse at the gate when
// the documents hold no evidence (no model call), otherwise pack the best sources into the model's
// context, stream the answer, and check its citations. Without a reachable model the sources are
// still returned, with the reason and what to do, so the evidence is never lost.
import { KbError } from '../../shared/errors.js';
import type { Config } from '../../shared/config.js';
import { SCHEMA_VERSION, type AskProgress, type AskResult, type AskSource, type Citation } from '../../shared/wire.js';
import type { SearchParams, SearchResult } from '../../shared/wire.js';
import { checkAnswer } from './check.js';
import { gate, nearEnough } from './gate.js';
import { type OllamaClient, ollamaFor } from '../ollama.js';
import { buildPrompt, promptOverheadTokens } from './prompt.js';
import { mergeHits, packSources } from './sources.js';

export const REFUSAL = "I couldn't find this in your documents.";

export interface AskCall {
  question: string;
  top: number;
  signal?: AbortSignal;
  onProgress?: (p: AskProgress) => void;
}

/** What answering asks of the engine: its search, and the unit its refusal gate measures evidence in. */
export interface AskEngine {
  search(params: SearchParams): Promise<SearchResult>;
  evidenceUnit(): Promise<number>;
}

const clients = new Map<string, OllamaClient>();
function client(config: Config['ask']): OllamaClient {
  const c = ollamaFor(config);
  const key = `${c.host} ${c.model}`;
  if (!clients.has(key)) clients.set(key, c);
  return clients.get(key)!;
}

export async function ask(engine: AskEngine, config: Config['ask'], call: AskCall): Promise<AskResult> {
  const t0 = performance.now();
  const llm = client(config);
  const ctl = new AbortController();
  const abort = (): void => ctl.abort(call.signal?.reason);
  call.signal?.addEventListener('abort', abort, { once: true });
  try {
    const searched = await engine.search({ query: call.question, top: call.top, mode: 'hybrid', explain: true });
    // An answer is read from passages: a document found by its name alone has none to give.
    const found = { ...searched, results: searched.results.filter((h) => !h.retrieval.by_name) };
    const verdict = gate(found, await engine.evidenceUnit(), config.gate);
    const evidence = {
      coverage: round(verdict.coverage),
      strength: round(verdict.strength),
      similarity: verdict.similarity === null ? null : round(verdict.similarity),
    };
    const base = {
      schema_version: SCHEMA_VERSION,
      question: call.question,
      invalid_citations: [] as number[],
      uncited_sentences: [] as string[],
      evidence,
    };
    const took = (): number => Math.round(performance.now() - t0);

    if (verdict.refuse) {
      // Too little evidence: no model is asked. The nearest passages are shown for the user to judge.
      const nearest: AskSource[] = found.results
        .filter((h) => nearEnough(h, config.gate))
        .slice(0, 3)
        .map((hit, i) => ({ n: i + 1, hit }));
      call.onProgress?.({ kind: 'sources', sources: nearest });
      return {
        ...base,
        answer: REFUSAL,
        citations: [],
        sources: nearest,
        refused: true,
        reason: 'the documents hold too little evidence for this question',
        model: null,
        llm: { status: 'ok', reason: 'not asked: the evidence gate refused first' },
        took_ms: took(),
      };
    }

    // Only now is the model asked anything: a refusal never reaches it. (Its context size is cached.)
    const ctx = await llm.contextLength(ctl.signal).then(
      (n) => ({ n }),
      (e: unknown) => ({ error: e }),
    );
    const numCtx = Math.min(config.num_ctx, 'n' in ctx && ctx.n ? ctx.n : config.num_ctx);
    const budget = numCtx - config.answer_tokens - promptOverheadTokens(call.question);
    const sources = packSources(mergeHits(found.results), Math.max(256, budget));
    call.onProgress?.({ kind: 'sources', sources });
    // No server, or no such model: the sources are the answer, with what to do.
    const unreachable = (e: unknown): AskResult => {
      if (!(e instanceof KbError) || (e.code !== 'LLM_UNAVAILABLE' && e.code !== 'MODEL_MISSING')) throw e;
      return {
        ...base,
        answer: '',
        citations: [],
        sources: sources.filter((s) => nearEnough(s.hit, config.gate)).map((s, i) => ({ ...s, n: i + 1 })),
        refused: false,
        reason: e.message,
        model: llm.model,
        llm: { status: 'unavailable', reason: e.message },
        took_ms: took(),
      };
    };
    if ('error' in ctx) return unreachable(ctx.error);

    let text: string;
    try {
      text = await stream(
        llm,
        buildPrompt(call.question, sources),
        { num_ctx: numCtx, num_predict: config.answer_tokens },
        config,
        ctl,
        call.onProgress,
      );
    } catch (e) {
      // (These two come only from starting the chat, before any token: the context size was cached.)
      return unreachable(e);
    }
    const checked = checkAnswer(text, sources.length);
    const byN = new Map(sources.map((s) => [s.n, s.hit.citation]));
    const citations = checked.cited.map((n) => ({ n, citation: byN.get(n) as Citation }));
    return {
      ...base,
      answer: checked.answer,
      citations,
      sources,
      refused: checked.notInDocuments,
      reason: checked.notInDocuments ? 'the model found no answer in the sources' : null,
      model: llm.model,
      llm: { status: 'ok' },
      invalid_citations: checked.invalid,
      uncited_sentences: checked.uncited,
      took_ms: took(),
    };
  } finally {
    call.signal?.removeEventListener('abort', abort);
    ctl.abort(); // nothing may outlive the call
  }
}

/** Streams the answer to onProgress; a first token or a next one that takes too long aborts it with TIMEOUT. */
async function stream(
  llm: OllamaClient,
  messages: ReturnType<typeof buildPrompt>,
  options: { num_ctx: number; num_predict: number },
  config: Config['ask'],
  ctl: AbortController,
  onProgress?: (p: AskProgress) => void,
): Promise<string> {
  let text = '';
  let timedOut: string | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (s: number, what: string): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = what;
      ctl.abort();
    }, s * 1000);
  };
  arm(
    config.first_token_timeout_s,
    `Ollama sent no answer within ${config.first_token_timeout_s} s (is the model still loading? try again, or raise ask.first_token_timeout_s)`,
  );
  try {
    for await (const token of llm.chat(messages, options, ctl.signal)) {
      arm(config.stall_timeout_s, `Ollama stopped sending the answer for ${config.stall_timeout_s} s`);
      text += token;
      onProgress?.({ kind: 'token', text: token });
    }
    return text;
  } catch (e) {
    if (timedOut) throw new KbError('TIMEOUT', timedOut);
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
