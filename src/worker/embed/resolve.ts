// From the name the config gives to a runnable embedding model: the registry's models and rerankers
// (models/<id>/), folders imported under a name of their own (models/<name>/ with the kb-model.json
// kb wrote when it read the folder), and Ollama's models (ollama:<name>, nothing on disk).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { TextEmbedder } from './provider.js';
import { MODELS, modelSpec, OLLAMA_PREFIXES, rerankerSpec } from './registry.js';
import { type EmbeddingSpec, ollamaModelOf } from './spec.js';

export const MANIFEST = 'kb-model.json';

const EmbeddingSpecSchema = z.object({
  id: z.string(),
  provider: z.enum(['onnx', 'ollama']),
  dimension: z.number().int().nonnegative(),
  pooling: z.enum(['mean', 'cls', 'last', 'none']),
  normalize: z.boolean(),
  maxTokens: z.number().int().positive(),
  queryPrefix: z.string(),
  passagePrefix: z.string(),
  importedAt: z.string().optional(),
});

/** What kb learnt of an imported folder, written beside it so it is read once. */
export const ManifestSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('embedding'), spec: EmbeddingSpecSchema, from: z.string(), imported_at: z.string() }),
  z.object({
    kind: z.literal('reranker'),
    spec: z.object({ id: z.string(), maxTokens: z.number().int().positive() }),
    from: z.string(),
    imported_at: z.string(),
  }),
]);
export type Manifest = z.infer<typeof ManifestSchema>;

export function readManifest(dir: string): Manifest | null {
  const file = join(dir, MANIFEST);
  if (!existsSync(file)) return null;
  try {
    const m = ManifestSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return m.success ? m.data : null;
  } catch {
    return null;
  }
}

export interface ResolvedEmbedding {
  spec: EmbeddingSpec;
  /** The model folder (onnx); null for Ollama. */
  dir: string | null;
}

export interface Unavailable {
  unavailable: string;
  /** The cause may pass by itself (a server not running yet): ask again next time rather than remember. */
  retry?: boolean;
  /** Asked for by name (kb reindex --model, kb models use): an unknown name is the caller's mistake. */
  code?: 'INVALID_ARGUMENT' | 'MODEL_MISSING';
}

/** Folders imported under names of their own (they carry a manifest). */
export function importedNames(modelsDir: string): string[] {
  if (!existsSync(modelsDir)) return [];
  return readdirSync(modelsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && existsSync(join(modelsDir, e.name, MANIFEST)))
    .map((e) => e.name)
    .sort();
}

/**
 * The embedding model `ref` names with the config's prefix overrides applied, or why it cannot be
 * used. Ollama models resolve without asking the server (open() does).
 */
export function resolveEmbedding(
  modelsDir: string,
  ref: string,
  overrides: { query_prefix?: string | undefined; passage_prefix?: string | undefined } = {},
): ResolvedEmbedding | Unavailable {
  const withOverrides = (spec: EmbeddingSpec): EmbeddingSpec => ({
    ...spec,
    queryPrefix: overrides.query_prefix ?? spec.queryPrefix,
    passagePrefix: overrides.passage_prefix ?? spec.passagePrefix,
  });
  if (ollamaModelOf(ref) !== null) {
    if (!ollamaModelOf(ref))
      return { unavailable: 'no Ollama model named: ollama: and then its name, e.g. ollama:nomic-embed-text', code: 'INVALID_ARGUMENT' };
    return { spec: withOverrides(ollamaSpec(ref)), dir: null };
  }
  const dir = join(modelsDir, ref);
  const registered = modelSpec(ref);
  if (registered) {
    if (!existsSync(join(dir, 'tokenizer.json')))
      return { unavailable: `no embedding model installed — run: kb models pull ${ref}`, code: 'MODEL_MISSING' };
    const { repo: _r, revision: _v, files: _f, ...spec } = registered;
    return { spec: withOverrides(spec), dir };
  }
  const manifest = readManifest(dir);
  if (manifest?.kind === 'embedding') return { spec: withOverrides({ ...manifest.spec, id: ref, importedAt: manifest.imported_at }), dir };
  if (rerankerSpec(ref) || manifest?.kind === 'reranker') {
    return {
      unavailable: `${ref} is a reranker, not an embedding model: kb models use ${ref} makes it rerank.model`,
      code: 'INVALID_ARGUMENT',
    };
  }
  return {
    unavailable: `unknown model ${ref} — embedding models kb knows: ${[...MODELS.map((m) => m.id), ...importedNames(modelsDir)].join(', ')}; or one Ollama serves: ollama:<model>; or a folder: kb models import DIR --as NAME`,
    code: 'INVALID_ARGUMENT',
  };
}

/** An Ollama model before it is probed (dimension 0): the prefixes its model card asks for, if kb knows them. */
export function ollamaSpec(ref: string): EmbeddingSpec {
  const model = ollamaModelOf(ref) ?? ref;
  const known = OLLAMA_PREFIXES[model.split(':')[0]!];
  return {
    id: `ollama:${model}`,
    provider: 'ollama',
    dimension: 0,
    pooling: 'none',
    normalize: true,
    // The server truncates to the model's own context.
    maxTokens: 1,
    queryPrefix: known?.query ?? '',
    passagePrefix: known?.passage ?? '',
  };
}

export function embeddingAvailable(modelsDir: string, ref: string): boolean {
  return !('unavailable' in resolveEmbedding(modelsDir, ref));
}

/** Loads the model (onnx) or opens it on the server (Ollama, one probe). */
export async function openEmbedder(r: ResolvedEmbedding, ollamaHost: string): Promise<TextEmbedder> {
  if (r.spec.provider === 'ollama') {
    const { OllamaEmbedder } = await import('./ollama.js');
    return OllamaEmbedder.open(ollamaHost, r.spec);
  }
  const { Embedder } = await import('./embedder.js');
  return Embedder.load(r.dir!, r.spec);
}
