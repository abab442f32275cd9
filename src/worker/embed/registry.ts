// The embedding models kb knows: where they live on the hub, and how each must be run.
export interface ModelFile {
  path: string;
  /** Known size and sha256 (from the hub's LFS pointer), checked after download. */
  size?: number;
  sha256?: string;
  optional?: boolean;
}

export interface ModelSpec {
  id: string;
  /** Hugging Face repository with an ONNX export. */
  repo: string;
  revision: string;
  dimension: number;
  pooling: 'mean' | 'cls';
  normalize: boolean;
  /** Longer inputs are truncated to this many tokens (including [CLS] and [SEP]). */
  maxTokens: number;
  queryPrefix: string;
  passagePrefix: string;
  files: ModelFile[];
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
    repo: 'Xenova/all-MiniLM-L6-v2',
    revision: 'main',
    dimension: 384,
    pooling: 'mean',
    normalize: true,
    maxTokens: 256,
    queryPrefix: '',
    passagePrefix: '',
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
