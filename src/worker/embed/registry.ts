// The models kb knows by name: embedding models and rerankers on the hub (where they live, how each
// must be run), and the query/document prefixes of embedding models Ollama serves.
import type { Config } from '../../shared/config.js';
import type { EmbeddingSpec } from './spec.js';

export interface ModelFile {
  path: string;
  /** Known size and sha256 (from the hub's LFS pointer), checked after download. */
  size?: number;
  sha256?: string;
  optional?: boolean;
}

/** A model on the Hugging Face hub with an ONNX export. */
export interface HubModel {
  id: string;
  repo: string;
  revision: string;
  files: ModelFile[];
}

export interface ModelSpec extends HubModel, EmbeddingSpec {
  /**
   * ask.gate.min_similarity for this model when the config sets none: on Cranfield, the cosine from
   * which meaning lets none of the off-topic questions through that words refuse, measured with the
   * model's real weights (npm run bench -- ask). Unset: meaning opens no way past the gate.
   */
  gateSimilarity?: number;
}

/**
 * Where "similar" begins for a model: ask.gate.min_similarity when the config sets it, else the
 * model's calibrated gateSimilarity. The ask gate lets a question through by meaning from there, and
 * a hybrid search shows a hit meaning alone found from there (search/fuse.ts) — for the model whose
 * vectors answer, which during a reindex is not yet the one the config names.
 */
export function similarFrom(config: Pick<Config, 'ask'>, model: string): number | undefined {
  return config.ask.gate.min_similarity ?? modelSpec(model)?.gateSimilarity;
}

/** A cross-encoder: scores a (query, passage) pair with one relevance logit. */
export interface RerankerSpec extends HubModel {
  /** Longer pairs are cut to this many tokens, specials included. */
  maxTokens: number;
}

const TOKENIZER: ModelFile[] = [
  { path: 'config.json' },
  { path: 'tokenizer.json' },
  { path: 'tokenizer_config.json' },
  { path: 'special_tokens_map.json', optional: true },
];

export const MODELS: readonly ModelSpec[] = [
  {
    id: 'all-MiniLM-L6-v2',
    provider: 'onnx',
    repo: 'Xenova/all-MiniLM-L6-v2',
    revision: 'main',
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    maxTokens: 256,
    queryPrefix: '',
    passagePrefix: '',
    // On-topic questions' best passage: p10 0.56; off-topic: p90 0.33, at most 0.42 (bench ask).
    gateSimilarity: 0.43,
    files: [
      ...TOKENIZER,
      {
        path: 'onnx/model_quantized.onnx',
        size: 22_972_370,
        sha256: 'afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1',
      },
    ],
  },
  {
    id: 'multilingual-e5-small',
    provider: 'onnx',
    repo: 'Xenova/multilingual-e5-small',
    revision: 'main',
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
    files: [...TOKENIZER, { path: 'onnx/model_quantized.onnx' }],
  },
  {
    id: 'bge-small-en-v1.5',
    provider: 'onnx',
    repo: 'Xenova/bge-small-en-v1.5',
    revision: 'main',
    dimension: 384,
    pooling: 'cls',
    normalize: true,
    maxTokens: 512,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    passagePrefix: '',
    files: [...TOKENIZER, { path: 'onnx/model_quantized.onnx' }],
  },
];

export const DEFAULT_MODEL = 'all-MiniLM-L6-v2';

export function modelSpec(id: string): ModelSpec | undefined {
  return MODELS.find((m) => m.id === id);
}

export const RERANKERS: readonly RerankerSpec[] = [
  {
    id: 'ms-marco-MiniLM-L-6-v2',
    repo: 'Xenova/ms-marco-MiniLM-L-6-v2',
    revision: 'main',
    maxTokens: 512,
    files: [...TOKENIZER, { path: 'onnx/model_quantized.onnx' }],
  },
  {
    id: 'bge-reranker-base',
    repo: 'Xenova/bge-reranker-base',
    revision: 'main',
    maxTokens: 512,
    files: [...TOKENIZER, { path: 'onnx/model_quantized.onnx' }],
  },
];

export const DEFAULT_RERANKER = 'ms-marco-MiniLM-L-6-v2';

export function rerankerSpec(id: string): RerankerSpec | undefined {
  return RERANKERS.find((m) => m.id === id);
}

/**
 * What Ollama's embedding models expect in front of a query and a document (their model cards; Ollama
 * adds nothing itself). Keyed by the name without its :tag. embedding.query_prefix / passage_prefix
 * override these.
 */
export const OLLAMA_PREFIXES: Readonly<Record<string, { query: string; passage: string }>> = {
  'nomic-embed-text': { query: 'search_query: ', passage: 'search_document: ' },
  'mxbai-embed-large': { query: 'Represent this sentence for searching relevant passages: ', passage: '' },
  embeddinggemma: { query: 'task: search result | query: ', passage: 'title: none | text: ' },
  'qwen3-embedding': {
    query: 'Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ',
    passage: '',
  },
  'snowflake-arctic-embed': { query: 'Represent this sentence for searching relevant passages: ', passage: '' },
  'snowflake-arctic-embed2': { query: 'query: ', passage: '' },
  'bge-m3': { query: '', passage: '' },
  'all-minilm': { query: '', passage: '' },
  'granite-embedding': { query: '', passage: '' },
};
