// What a model folder says about itself, in the files sentence-transformers saves: modules.json (the
// pipeline), 1_Pooling/config.json (how token vectors become one), config_sentence_transformers.json
// (query and document prompts), sentence_bert_config.json (max length), config.json (the transformer,
// or a one-label sequence classifier: a cross-encoder). `kb models import DIR --as NAME` runs on this.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import type { Pooling } from './spec.js';

export type FolderReading =
  | {
      kind: 'embedding';
      pooling: Pooling;
      normalize: boolean;
      maxTokens: number;
      queryPrefix: string;
      passagePrefix: string;
      /** Dense layers after pooling: only an export that applies them in the graph (sentence_embedding) can be used. */
      dense: boolean;
    }
  | { kind: 'reranker'; maxTokens: number };

function json(dir: string, file: string): Record<string, unknown> | null {
  const path = join(dir, file);
  if (!existsSync(path)) return null;
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (v && typeof v === 'object') return v as Record<string, unknown>;
  } catch (e) {
    throw new KbError('MODEL_INVALID', `${path} is not readable JSON: ${(e as Error).message}`);
  }
  throw new KbError('MODEL_INVALID', `${path} does not hold a JSON object`);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null);

/** Reads the folder's description of itself; every gap that matters is a MODEL_INVALID naming the file. */
export function readModelFolder(dir: string): FolderReading {
  const config = json(dir, 'config.json');
  if (!config)
    throw new KbError(
      'MODEL_INVALID',
      `${dir} has no config.json: a model folder holds config.json, tokenizer.json and onnx/model.onnx (as the Hugging Face hub has them)`,
    );
  if (!existsSync(join(dir, 'tokenizer.json'))) {
    throw new KbError(
      'MODEL_INVALID',
      `${dir} has no tokenizer.json (kb needs the fast-tokenizer file; save it with tokenizer.save_pretrained in transformers ≥ 4)`,
    );
  }
  const positions = num(config.max_position_embeddings) ?? 512;
  const architectures = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  if (architectures.some((a) => a.endsWith('ForSequenceClassification'))) {
    const labels =
      config.id2label && typeof config.id2label === 'object' ? Object.keys(config.id2label).length : (num(config.num_labels) ?? 1);
    if (labels > 1) {
      throw new KbError(
        'MODEL_INVALID',
        `${dir} is a classifier with ${labels} labels; a reranker gives one relevance score a pair (a cross-encoder trained with num_labels=1)`,
      );
    }
    return { kind: 'reranker', maxTokens: Math.min(positions, 512) };
  }

  const modules = (json(dir, 'modules.json') as unknown as { type?: string; path?: string }[] | null) ?? null;
  const list = Array.isArray(modules) ? modules : [];
  const poolingPath = list.find((m) => m.type?.endsWith('.Pooling'))?.path ?? '1_Pooling';
  const poolingConfig = json(dir, join(poolingPath, 'config.json'));
  let pooling: Pooling = 'none';
  if (poolingConfig) {
    const on = (k: string): boolean => poolingConfig[k] === true;
    const unsupported = ['pooling_mode_max_tokens', 'pooling_mode_mean_sqrt_len_tokens', 'pooling_mode_weightedmean_tokens'].filter(on);
    if (unsupported.length > 0) {
      throw new KbError(
        'MODEL_INVALID',
        `${join(dir, poolingPath, 'config.json')} pools by ${unsupported.join(', ').replace(/pooling_mode_|_tokens/g, '')}: kb pools by mean, [CLS] or last token`,
      );
    }
    const modes: Pooling[] = [
      ...(on('pooling_mode_cls_token') ? ['cls' as const] : []),
      ...(on('pooling_mode_mean_tokens') ? ['mean' as const] : []),
      ...(on('pooling_mode_lasttoken') ? ['last' as const] : []),
    ];
    if (modes.length !== 1) {
      throw new KbError(
        'MODEL_INVALID',
        `${join(dir, poolingPath, 'config.json')} should turn on exactly one of pooling_mode_cls_token, pooling_mode_mean_tokens, pooling_mode_lasttoken (it turns on ${modes.length})`,
      );
    }
    pooling = modes[0]!;
  }
  // Without a pooling config the ONNX graph must pool itself (a sentence_embedding output): load() checks.

  const st = json(dir, 'config_sentence_transformers.json');
  const prompts = (st?.prompts && typeof st.prompts === 'object' ? st.prompts : {}) as Record<string, unknown>;
  const bert = json(dir, 'sentence_bert_config.json');
  const maxSeq = num(bert?.max_seq_length) ?? Math.min(positions, 512);
  return {
    kind: 'embedding',
    pooling,
    normalize: list.length === 0 || list.some((m) => m.type?.endsWith('.Normalize')),
    maxTokens: Math.min(maxSeq, positions),
    queryPrefix: str(prompts.query) ?? str(prompts.search_query) ?? '',
    passagePrefix: str(prompts.document) ?? str(prompts.passage) ?? str(prompts.search_document) ?? '',
    dense: list.some((m) => m.type?.endsWith('.Dense')),
  };
}
