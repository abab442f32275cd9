// Models and collections as kb models …, kb add / collections / forget print them and the app's
// Models and Folders views receive them (their RPC methods in api.ts).
import { z } from 'zod';
import { ReindexResultSchema, SCHEMA_VERSION, TranscribedSchema } from './wire.js';

const V = z.literal(SCHEMA_VERSION);

export const EmbeddingModelSchema = z.object({
  id: z.string(),
  /** embedding: turns text into vectors (search by meaning); reranker: a cross-encoder re-scoring hits. */
  kind: z.enum(['embedding', 'reranker']),
  /** registry: known to kb and pulled from the hub; imported: a folder imported under a name of its own. */
  source: z.enum(['registry', 'imported']),
  /** The hub repository, or for an imported model the folder it came from. */
  repo: z.string(),
  /** 0 for a reranker. */
  dimension: z.number().int(),
  max_tokens: z.number().int(),
  installed: z.boolean(),
  path: z.string().nullable(),
  bytes: z.number().int().nullable(),
  /** About how much a pull downloads (the registry's known file sizes), when known. */
  download_bytes: z.number().int().nullable().optional(),
});
export const SpeechModelSchema = z.object({
  id: z.string(),
  about: z.string(),
  installed: z.boolean(),
  path: z.string().nullable(),
  bytes: z.number().int().nullable(),
});
export const ModelsListSchema = z.object({
  schema_version: V,
  models: z.array(EmbeddingModelSchema),
  speech_models: z.array(SpeechModelSchema),
  /** What the configuration uses: embedding.model, audio.model, and rerank.model when search.rerank is on. */
  in_use: z.object({ embedding: z.string(), speech: z.string(), reranker: z.string().nullable() }),
});
export type ModelsList = z.infer<typeof ModelsListSchema>;
export const ModelInstalledSchema = z.object({
  schema_version: V,
  model: z.union([EmbeddingModelSchema, SpeechModelSchema]),
  transcribed: TranscribedSchema.optional(),
});
export const ModelRemovedSchema = z.object({ schema_version: V, removed: z.string() });
/** kb models use: an embedding model switched to (as kb reindex --model reports it), or a reranker set. */
export const ModelUsedSchema = z.union([
  ReindexResultSchema.extend({ kind: z.literal('embedding') }),
  z.object({ schema_version: V, kind: z.literal('reranker'), model: z.string(), config_updated: z.string() }),
  /** A speech model becomes audio.model: it transcribes from the next start of kb (the app, kb serve, a command). */
  z.object({ schema_version: V, kind: z.literal('speech'), model: z.string(), config_updated: z.string() }),
]);

export const CollectionSchema = z.object({
  name: z.string(),
  root: z.string(),
  tags: z.array(z.string()),
  glob: z.string().nullable(),
  documents: z.number().int(),
  failed: z.number().int(),
  waiting: z.number().int(),
  added_at: z.string(),
  /** Whether the caller may add to it and remove from it (an admin, the owner, or an editor granted it). */
  writable: z.boolean(),
});
export const ReconcileSchema = z.object({
  collection: z.string(),
  files: z.number().int(),
  ingested: z.number().int(),
  removed: z.number().int(),
  unchanged: z.number().int(),
  errors: z.number().int(),
  took_ms: z.number(),
});
export const CollectionAddedSchema = z.object({ schema_version: V, collection: CollectionSchema, reconciled: ReconcileSchema });
export const CollectionsSchema = z.object({ schema_version: V, collections: z.array(CollectionSchema) });
export const ForgotSchema = z.object({ schema_version: V, collection: z.string(), removed: z.number().int() });
/** What forgetting a collection would take out of the index: the documents its own sync brought in. */
export const LeavingSchema = z.object({
  schema_version: V,
  collection: z.string(),
  documents: z.number().int(),
  /** The first few, by file name: a confirmation names them where few. */
  names: z.array(z.string()),
});
