// One interface for whoever embeds text: kb's own onnxruntime (embedder.ts) or the local Ollama server
// (ollama.ts). The vector half (vectors/) sees only this.
import type { EmbeddingSpec } from './spec.js';

export interface PassageEmbedder {
  embed(texts: string[], kind: 'query' | 'passage'): Promise<Float32Array[]>;
  close(): Promise<void>;
}

export interface TextEmbedder extends PassageEmbedder {
  /** With the dimension filled in (probed when the provider does not say it). */
  readonly spec: EmbeddingSpec;
  /** What embeds passages while an ingest runs: a thread of its own for onnx, the server itself for Ollama. */
  passages(): Promise<PassageEmbedder>;
  /** The model's tokenizer holds the word whole: a word of its language, not a slip (search/pipeline.ts). */
  knowsWord(word: string): boolean;
}
