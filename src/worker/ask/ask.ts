// Ask: the numbered evidence for a question. Until a language model is wired in (Ollama), the answer
// is an honest refusal that still shows the passages that match best, so the ask panel is useful
// and its contract (sources first, then streamed tokens, then the result) is already the real one.
import { SCHEMA_VERSION, type AskProgress, type AskResult, type AskSource } from '../../shared/wire.js';
import type { Engine } from '../engine.js';

export interface AskCall {
  question: string;
  top: number;
  signal?: AbortSignal;
  onProgress?: (p: AskProgress) => void;
}

export async function ask(engine: Engine, call: AskCall): Promise<AskResult> {
  const t0 = performance.now();
  const found = await engine.search({ query: call.question, top: call.top, mode: 'hybrid' });
  const sources: AskSource[] = found.results.map((hit, i) => ({ n: i + 1, hit }));
  call.onProgress?.({ kind: 'sources', sources });
  return {
    schema_version: SCHEMA_VERSION,
    question: call.question,
    answer: '',
    citations: [],
    sources,
    refused: true,
    reason: sources.length ? 'no language model is connected, so kb shows the passages that match best' : "I couldn't find this in your documents",
    model: null,
    llm: { status: 'unavailable', reason: 'answering through a local Ollama model is not connected in this version of kb' },
    took_ms: Math.round(performance.now() - t0),
  };
}
