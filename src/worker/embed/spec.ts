// What kb must know to run an embedding model, whichever provider serves it, and how the config names
// one: `all-MiniLM-L6-v2` (the registry), `my-model` (a folder imported under that name) or
// `ollama:nomic-embed-text` (a model the local Ollama server serves).
export type Provider = 'onnx' | 'ollama';

/** How token vectors become one: mean, [CLS], the last real token, or none (the graph gives sentence_embedding). */
export type Pooling = 'mean' | 'cls' | 'last' | 'none';

export interface EmbeddingSpec {
  /** The name bindings and the config use: a registry id, an imported name, or ollama:<model>. */
  id: string;
  provider: Provider;
  /** 0 until probed (an Ollama model says its dimension only by embedding something). */
  dimension: number;
  pooling: Pooling;
  normalize: boolean;
  /** Longer inputs are truncated to this many tokens (special tokens included). */
  maxTokens: number;
  queryPrefix: string;
  passagePrefix: string;
  /** An imported folder's import time: importing other weights under the same name makes other vectors. */
  importedAt?: string;
}

const OLLAMA = 'ollama:';

/** The Ollama model a name refers to (`ollama:nomic-embed-text` → `nomic-embed-text`), or null. */
export function ollamaModelOf(ref: string): string | null {
  return ref.startsWith(OLLAMA) ? ref.slice(OLLAMA.length) : null;
}

/** The model name the config means: embedding.provider ollama puts `ollama:` before embedding.model. */
export function embeddingRef(embedding: { provider: Provider; model: string }): string {
  if (embedding.provider === 'ollama' && !embedding.model.startsWith(OLLAMA)) return `${OLLAMA}${embedding.model}`;
  return embedding.model;
}

/** The config settings that name a model (what `kb models use` writes). */
export function configOf(ref: string): { provider: Provider; model: string } {
  const o = ollamaModelOf(ref);
  return o === null ? { provider: 'onnx', model: ref } : { provider: 'ollama', model: o };
}

/** What `kb models import DIR` installs as without --as: the configured model, unless Ollama serves it. */
export function defaultImportName(embedding: { provider: Provider; model: string }): string {
  const ref = embeddingRef(embedding);
  return ollamaModelOf(ref) === null ? ref : 'all-MiniLM-L6-v2';
}
