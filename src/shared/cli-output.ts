// The JSON every `kb … --json` command prints, as schemas: the ones the RPC also uses live in wire.ts
// and api.ts; these are the rest. scripts/schemas.ts turns all of them into the JSON Schemas committed
// in docs/schema/v1/, and tests validate real output against those files.
import { z } from 'zod';
import { ErrorPayloadSchema } from './errors.js';
import {
  AnchorSchema,
  AskResultSchema,
  DOC_STATUSES,
  DocTypeSchema,
  DoctorReportSchema,
  IngestSummarySchema,
  KbStatusSchema,
  ReindexResultSchema,
  RemoveResultSchema,
  SCHEMA_VERSION,
  SearchResultSchema,
  SpanSchema,
  DocumentListSchema,
} from './wire.js';
import {
  EmbeddingModelSchema,
  SpeechModelSchema,
  ModelsListSchema,
  ModelInstalledSchema,
  ModelRemovedSchema,
  ModelUsedSchema,
  CollectionSchema,
  ReconcileSchema,
  CollectionAddedSchema,
  CollectionsSchema,
  ForgotSchema,
} from './models-collections.js';

const V = z.literal(SCHEMA_VERSION);

// Models and collections travel over the RPC too: their schemas live in models-collections.ts.
export {
  EmbeddingModelSchema,
  SpeechModelSchema,
  ModelsListSchema,
  ModelInstalledSchema,
  ModelRemovedSchema,
  ModelUsedSchema,
  CollectionSchema,
  ReconcileSchema,
  CollectionAddedSchema,
  CollectionsSchema,
  ForgotSchema,
};

/** A document's row as stored (store/documents.ts reads it with this type). */
export const StoredDocumentSchema = z.object({
  id: z.string(),
  path: z.string(),
  root: z.string().nullable(),
  title: z.string(),
  type: DocTypeSchema,
  lang: z.string().nullable(),
  content_hash: z.string(),
  size: z.number().int(),
  mtime: z.number().int(),
  page_count: z.number().int().nullable(),
  duration: z.number().nullable(),
  parser_version: z.number().int(),
  /** indexed, waiting or failed: the same word kb ls, the Library and every other view show. */
  status: z.enum(DOC_STATUSES),
  error: z.string().nullable(),
  original: z.enum(['copy', 'reference']),
  added_at: z.number().int(),
  updated_at: z.number().int(),
  /** What the document says of itself: Office/EPUB author, a message's sender; null when it says nothing. */
  author: z.string().nullable().optional(),
  /** Its own date (ISO 8601): when it was written or sent, not the file's time. */
  created: z.string().nullable().optional(),
});

/** The row as every view shows it: its status in the one vocabulary (read/doc-state.ts) and why. */
export const DocumentRowSchema = StoredDocumentSchema.extend({
  /** Why it is waiting or failed, or what is missing from an indexed one; null when all is well. */
  reason: z.string().nullable(),
});

export const ChunkRowSchema = z.object({
  rowid: z.number().int(),
  id: z.string(),
  doc_id: z.string(),
  ordinal: z.number().int(),
  heading: z.string(),
  text: z.string(),
  anchor: AnchorSchema,
  chunker_version: z.number().int(),
});

export const InspectDocSchema = z.object({
  schema_version: V,
  document: DocumentRowSchema.extend({ tags: z.array(z.string()) }),
  original: z
    .object({ mode: z.enum(['copy', 'reference']), sha256: z.string(), blob_path: z.string().nullable(), available: z.boolean() })
    .nullable(),
  chunks: z.array(ChunkRowSchema),
  ocr_pages: z.array(
    z.object({ page: z.number().int(), status: z.string(), confidence: z.number().nullable(), error: z.string().nullable() }),
  ),
  transcript: z
    .object({
      status: z.string(),
      model: z.string().nullable(),
      language: z.string().nullable(),
      error: z.string().nullable(),
      text: z.string().nullable(),
    })
    .nullable(),
  errors: z.array(z.object({ code: z.string(), message: z.string() }).loose()),
});

export const InspectChunkSchema = z.object({ schema_version: V, chunk: ChunkRowSchema, document: DocumentRowSchema });

export const DoctorFixSchema = z.object({
  schema_version: V,
  actions: z.array(z.object({ name: z.string(), detail: z.string() })),
  report: DoctorReportSchema,
});
export const InitSchema = z.object({ schema_version: V, config: z.string(), data_dir: z.string() });
export const GcSchema = z.object({
  schema_version: V,
  removed_blobs: z.number().int(),
  /** The stored copies' bytes and the dropped files' copies' bytes given back. */
  freed_bytes: z.number().int(),
  /** Dropped files' copies in uploads/ that no document was read from (a cancelled drop's, a removed document's). */
  removed_uploads: z.number().int(),
  /** What the index file gave back to the disk: the free pages of deleted rows. */
  compacted_bytes: z.number().int(),
  /** What the vector table's replaced versions took (an index build leaves the table twice on disk for a while). */
  vector_bytes: z.number().int(),
});
/** kb migrate: what was copied into the PostgreSQL database, and what was there already (an earlier, interrupted run). */
export const MigrateSchema = z.object({
  schema_version: V,
  /** The database, as it may be shown (no password). */
  to: z.string(),
  documents: z.number().int(),
  /** Documents an earlier run copied already. */
  skipped: z.number().int(),
  chunks: z.number().int(),
  originals: z.number().int(),
  vectors: z.number().int(),
  /** Why no vectors were copied, when the index has some. */
  vectors_skipped: z.string().nullable(),
  cancelled: z.boolean(),
  took_ms: z.number().int(),
});
export const RoleSchema = z.enum(['admin', 'editor', 'reader']);
export type Role = z.infer<typeof RoleSchema>;
/** kb users add / kb users token: the token, shown this once (only its hash is kept). */
export const UserTokenSchema = z.object({ schema_version: V, name: z.string(), role: RoleSchema, token: z.string() });
export const UsersSchema = z.object({
  schema_version: V,
  users: z.array(z.object({ name: z.string(), role: RoleSchema, created_at: z.string() })),
  /** Who may read each collection: user names, or @all. */
  grants: z.array(z.object({ collection: z.string(), grantee: z.string() })),
});
export const UserRemovedSchema = z.object({ schema_version: V, removed: z.string() });
/** kb grant-server: the role a team server connects as may read and write kb's rows, owning nothing. */
export const ServerGrantSchema = z.object({ schema_version: V, role: z.string(), owner: z.string(), schema: z.number().int() });
export const GrantSchema = z.object({ schema_version: V, collection: z.string(), grantee: z.string(), changed: z.boolean() });
/** kb audit: who changed users, grants and collections, newest first. */
export const AuditSchema = z.object({
  schema_version: V,
  entries: z.array(z.object({ at: z.string(), actor: z.string(), action: z.string(), target: z.string(), detail: z.string().nullable() })),
});
/** kb serve --json: where it serves, and the file its owner token is in (never the token itself: stdout may be a log). */
export const ServeSchema = z.object({
  schema_version: V,
  url: z.string(),
  port: z.number().int(),
  data_dir: z.string(),
  token_file: z.string(),
});

const metric = z.number();
export const EvalRunSchema = z.object({
  schema_version: V,
  file: z.string(),
  k: z.number().int(),
  mode: z.string(),
  queries: z.number().int(),
  metrics: z.object({ recall_at_k: metric, mrr: metric, ndcg_at_10: metric }),
  per_query: z.array(
    z.object({
      id: z.string(),
      query: z.string(),
      recall: metric,
      mrr: metric,
      ndcg10: metric,
      first_relevant_rank: z.number().int().nullable(),
      top: z.array(z.string()),
    }),
  ),
});
const delta = z.object({ a: metric, b: metric, delta: metric });
export const EvalCompareSchema = z.object({
  schema_version: V,
  a: z.string(),
  b: z.string(),
  metrics: z.object({ recall_at_k: delta, mrr: delta, ndcg_at_10: delta }),
  changed: z.array(z.object({ id: z.string(), query: z.string(), ndcg10_a: metric, ndcg10_b: metric, delta: metric })),
});

/** `kb watch --json` prints one of these per line. */
export const WatchLineSchema = z.discriminatedUnion('event', [
  ReconcileSchema.extend({ schema_version: V, event: z.literal('reconciled') }),
  z.object({ schema_version: V, event: z.literal('watching'), collections: z.array(z.string()) }),
  z.object({
    schema_version: V,
    event: z.literal('changed'),
    collection: z.string(),
    ingested: z.array(z.string()),
    removed: z.array(z.string()),
    errors: z.array(z.object({ path: z.string(), message: z.string() })),
    took_ms: z.number(),
  }),
]);

export const ErrorOutputSchema = z.object({ schema_version: V, error: ErrorPayloadSchema });
/** `kb logs --json`: the log folder and its files, oldest change first. */
export const LogsSchema = z.object({
  schema_version: V,
  logs: z.string(),
  files: z.array(z.object({ file: z.string(), bytes: z.number().int(), modified: z.string() })),
});

/** Every command's output: the file name in docs/schema/v1/ (without .schema.json) → its schema. */
export const CLI_OUTPUTS = {
  init: InitSchema,
  ingest: IngestSummarySchema,
  search: SearchResultSchema,
  ask: AskResultSchema,
  get: SpanSchema,
  status: KbStatusSchema,
  ls: DocumentListSchema,
  'inspect-doc': InspectDocSchema,
  'inspect-chunk': InspectChunkSchema,
  remove: RemoveResultSchema,
  gc: GcSchema,
  migrate: MigrateSchema,
  'users-token': UserTokenSchema,
  'users-list': UsersSchema,
  'users-remove': UserRemovedSchema,
  grant: GrantSchema,
  'grant-server': ServerGrantSchema,
  audit: AuditSchema,
  doctor: DoctorReportSchema,
  'doctor-fix': DoctorFixSchema,
  reindex: ReindexResultSchema,
  serve: ServeSchema,
  'models-list': ModelsListSchema,
  'models-install': ModelInstalledSchema,
  'models-remove': ModelRemovedSchema,
  'models-use': ModelUsedSchema,
  'eval-run': EvalRunSchema,
  'eval-compare': EvalCompareSchema,
  add: CollectionAddedSchema,
  collections: CollectionsSchema,
  forget: ForgotSchema,
  watch: WatchLineSchema,
  logs: LogsSchema,
  error: ErrorOutputSchema,
} as const;
