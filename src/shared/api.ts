// The RPC contract between the UI (renderer, or a browser through `kb serve`) and the worker: method
// names, their params and results, the messages that carry them, and the events the worker sends.
// Every message is validated with these schemas where it crosses a process boundary.
import { z } from 'zod';
import { DocIdSchema } from './doc-id.js';
import { ErrorPayloadSchema } from './errors.js';
import {
  AuditSchema,
  DoctorFixSchema,
  GcSchema,
  GrantSchema,
  ServerGrantSchema,
  InspectChunkSchema,
  InspectDocSchema,
  MigrateSchema,
  RoleSchema,
  UserRemovedSchema,
  UsersSchema,
  UserTokenSchema,
} from './cli-output.js';
import type { MethodName } from './methods.js';
import {
  AskParamsSchema,
  AskProgressSchema,
  AskResultSchema,
  DocumentPageParamsSchema,
  DocumentPageSchema,
  DoctorReportSchema,
  DocumentSourceSchema,
  DocViewSchema,
  IngestProgressSchema,
  IngestSummarySchema,
  ReindexProgressSchema,
  RemoveResultSchema,
  ReindexResultSchema,
  SCHEMA_VERSION,
  SearchCallSchema,
  SearchHitSchema,
  FacetsSchema,
  SpanSchema,
  SearchResultSchema,
  KbStatusSchema,
} from './wire.js';
import type { EventData, EventName } from './events.js';
import {
  CollectionAddedSchema,
  CollectionsSchema,
  ForgotSchema,
  LeavingSchema,
  ModelInstalledSchema,
  ModelRemovedSchema,
  ModelsListSchema,
  ModelUsedSchema,
} from './models-collections.js';
import { SettingSetSchema, SettingsSchema, SettingsSetParamsSchema } from './settings.js';

/** Every error kb reports, on the wire and in --json output: one of the codes in errors.ts. */

export const StatusSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  ready: z.boolean(),
  data_dir: z.string(),
  version: z.string(),
});

const none = z.object({}).strict();

/** The team server this machine's app is connected to (Settings → Team server), and how that stands. */
export const ServerLinkSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  /** The server's address, or null when the app uses this machine's index only. */
  url: z.string().nullable(),
  /** Who the token signs in as there, and their role (null when not connected). */
  user: z.string().nullable(),
  role: RoleSchema.nullable(),
  connected: z.boolean(),
  /** Why it is not connected (the server unreachable, the token refused). */
  error: z.string().nullable(),
});
export type ServerLink = z.infer<typeof ServerLinkSchema>;

export const WhoAmISchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  /** The user's name, or null for the machine's owner (the app, the CLI, the link kb serve printed). */
  user: z.string().nullable(),
  role: RoleSchema,
});

/** A model pull's progress: the file being fetched, bytes so far and its size (null when the hub does not say). */
export const ModelPullProgressSchema = z.object({
  model: z.string(),
  file: z.string(),
  received: z.number().int().nonnegative(),
  total: z.number().int().nonnegative().nullable(),
  /** Every file of the model together, when their sizes are known. */
  done_bytes: z.number().int().nonnegative(),
  total_bytes: z.number().int().nonnegative().nullable(),
});
export type ModelPullProgress = z.infer<typeof ModelPullProgressSchema>;

const modelName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\w.-]+$/, 'a model name (letters, digits, . _ -)');

/** Every method: what it takes, what it answers, and what its `progress` events carry while it runs. */
export const API = {
  status: { params: none, result: StatusSchema, progress: null },
  /** Who the caller is to this engine: a team server's user, or the machine's owner. */
  whoami: { params: none, result: WhoAmISchema, progress: null },
  search: { params: SearchCallSchema, result: SearchResultSchema, progress: null },
  ingest: {
    params: z
      .object({
        paths: z.array(z.string().min(1)).min(1),
        tags: z.array(z.string()).optional(),
        /** Read every file again, even those kb has indexed already unchanged (the Library's Re-index). */
        force: z.boolean().optional(),
        /**
         * The connected team server's collection to add the files to: each is uploaded there (the
         * server checks the person may add to it) and indexed by the server. Absent: this machine's index.
         */
        collection: z.string().min(1).max(200).optional(),
      })
      .strict(),
    result: IngestSummarySchema,
    progress: IngestProgressSchema,
  },
  /** The Library a page at a time, in the order and with the filter the person chose. */
  'documents.page': { params: DocumentPageParamsSchema, result: DocumentPageSchema, progress: null },
  /** Every document's path (the Library's Re-index all). */
  'documents.paths': {
    params: none,
    result: z.object({ schema_version: z.literal(SCHEMA_VERSION), paths: z.array(z.string()) }),
    progress: null,
  },
  remove: { params: z.object({ target: z.string().min(1) }).strict(), result: RemoveResultSchema, progress: null },
  doctor: { params: none, result: DoctorReportSchema, progress: null },
  /** kb doctor --fix: rebuilds what can be rebuilt (word indexes, vectors, stray originals), then checks again. */
  'doctor.fix': { params: none, result: DoctorFixSchema, progress: ReindexProgressSchema },
  source: { params: z.object({ doc_id: DocIdSchema }).strict(), result: DocumentSourceSchema, progress: null },
  /** A structured document rendered at a citation fragment (`para=3-5`, `slide=2`, …) for the viewer's frame. */
  /** A document at its start, as a hit the viewer opens (a Library row). */
  'document.open': { params: z.object({ doc_id: DocIdSchema }).strict(), result: SearchHitSchema, progress: null },
  /** The text of a cited span (kb get): a citation URI, a path with a fragment, or a document id with one. */
  get: {
    params: z.object({ target: z.string().min(1).max(8192), max_chars: z.number().int().positive().max(10_000_000).optional() }).strict(),
    result: SpanSchema,
    progress: null,
  },
  /** A document's stored records whole (kb inspect doc): its row, chunks, OCR pages, transcript, errors. */
  'inspect.document': { params: z.object({ target: z.string().min(1) }).strict(), result: InspectDocSchema, progress: null },
  /** A chunk's stored record and its document's (kb inspect chunk). */
  'inspect.chunk': { params: z.object({ chunk_id: z.string().min(1) }).strict(), result: InspectChunkSchema, progress: null },
  /** Stored originals nothing refers to any more, deleted (kb gc). */
  gc: { params: none, result: GcSchema, progress: null },
  /** kb migrate: this data dir's SQLite index copied into a PostgreSQL database; resumed by the next run. */
  'store.migrate': {
    params: z.object({ to: z.string().min(1).max(4000) }).strict(),
    result: MigrateSchema,
    progress: ReindexProgressSchema,
  },
  /** The types and tags a search can be narrowed to, and the documents' counts (the filters, the footer). */
  facets: { params: none, result: FacetsSchema, progress: null },
  'document.view': {
    params: z.object({ doc_id: DocIdSchema, at: z.string().max(4000).optional(), q: z.string().max(500).optional() }).strict(),
    result: DocViewSchema,
    progress: null,
  },
  reindex: { params: z.object({ model: z.string().optional() }).strict(), result: ReindexResultSchema, progress: ReindexProgressSchema },
  /** Answers from the documents, streaming its sources and then the answer's tokens as progress. */
  ask: { params: AskParamsSchema, result: AskResultSchema, progress: AskProgressSchema },
  /** Counts, collections, models and the language model's state (kb status), with the index's size on disk. */
  'index.status': { params: none, result: KbStatusSchema, progress: null },
  'models.list': { params: none, result: ModelsListSchema, progress: null },
  /** Fetches an embedding or speech (whisper-…) model from the hub; cancellable, and resumed by the next pull. */
  'models.pull': { params: z.object({ name: modelName }).strict(), result: ModelInstalledSchema, progress: ModelPullProgressSchema },
  /** A model from a path on the machine running the engine: a folder (embedding) or a file (speech). */
  'models.import': {
    params: z.object({ path: z.string().min(1), as: modelName.optional() }).strict(),
    result: ModelInstalledSchema,
    progress: null,
  },
  'models.remove': { params: z.object({ name: modelName }).strict(), result: ModelRemovedSchema, progress: null },
  /**
   * kb models use: an embedding model (a registry id, an imported name, ollama:<model>) is switched to,
   * re-embedding everything while searches use the old vectors; a reranker becomes rerank.model.
   */
  'models.use': {
    params: z
      .object({
        name: z
          .string()
          .min(1)
          .max(200)
          .regex(/^(ollama:)?[\w.-][\w.:/-]*$/, 'a model name, or ollama: and the name Ollama gives it'),
      })
      .strict(),
    result: ModelUsedSchema,
    progress: ReindexProgressSchema,
  },
  'collections.list': { params: none, result: CollectionsSchema, progress: null },
  /** A folder kept in sync (kb add): read now, then watched. */
  'collections.add': {
    params: z
      .object({
        path: z.string().min(1),
        name: z.string().min(1).optional(),
        tags: z.array(z.string()).optional(),
        glob: z.string().min(1).optional(),
        /** Yes to a folder of more than a few thousand files (refused without it, saying how many). */
        many: z.boolean().optional(),
      })
      .strict(),
    result: CollectionAddedSchema,
    progress: IngestProgressSchema,
  },
  /** What forgetting the collection would take out of the index (what its confirmation says). */
  'collections.leaving': { params: z.object({ name: z.string().min(1) }).strict(), result: LeavingSchema, progress: null },
  'collections.forget': { params: z.object({ name: z.string().min(1) }).strict(), result: ForgotSchema, progress: null },
  /** A team's accounts (a shared store's): a user and their token, shown once. */
  'users.add': {
    params: z.object({ name: z.string().min(1).max(63), role: RoleSchema.optional() }).strict(),
    result: UserTokenSchema,
    progress: null,
  },
  'users.list': { params: none, result: UsersSchema, progress: null },
  'users.remove': { params: z.object({ name: z.string().min(1) }).strict(), result: UserRemovedSchema, progress: null },
  /** A new token for a user; the old one stops working at once. */
  'users.token': { params: z.object({ name: z.string().min(1) }).strict(), result: UserTokenSchema, progress: null },
  'collections.grant': {
    params: z.object({ collection: z.string().min(1), grantee: z.string().min(1) }).strict(),
    result: GrantSchema,
    progress: null,
  },
  'collections.revoke': {
    params: z.object({ collection: z.string().min(1), grantee: z.string().min(1) }).strict(),
    result: GrantSchema,
    progress: null,
  },
  /** kb grant-server: the database role a team server connects as gets kb's rows, and owns nothing. */
  'store.grant_server': {
    params: z.object({ role: z.string().min(1).max(63) }).strict(),
    result: ServerGrantSchema,
    progress: null,
  },
  /** Who changed users, grants and collections (kb audit). */
  audit: { params: z.object({ limit: z.number().int().positive().max(10_000).optional() }).strict(), result: AuditSchema, progress: null },
  'settings.get': { params: none, result: SettingsSchema, progress: null },
  /** The team server the app uses besides (for the Library, ask and Folders: instead of) this machine's index. */
  'server.status': { params: none, result: ServerLinkSchema, progress: null },
  'server.connect': {
    params: z.object({ url: z.string().min(1).max(2048), token: z.string().min(1).max(256) }).strict(),
    result: ServerLinkSchema,
    progress: null,
  },
  'server.disconnect': { params: none, result: ServerLinkSchema, progress: null },
  /** Writes config.yaml (comments kept), after checking the value; says whether it is in effect now. */
  'settings.set': { params: SettingsSetParamsSchema, result: SettingSetSchema, progress: null },
} as const;

export type Method = keyof typeof API;
export const METHODS = Object.keys(API) as Method[];

// The dependency-free list in methods.ts must name exactly the contract's methods.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _methodsMatch: Same<Method, MethodName> = true;
void _methodsMatch;
export type Params<M extends Method> = z.input<(typeof API)[M]['params']>;
export type Result<M extends Method> = z.output<(typeof API)[M]['result']>;
type ProgressOf<M extends Method> = (typeof API)[M]['progress'];
/** What a method's progress events carry (never, for a method that sends none). */
export type Progress<M extends Method> = ProgressOf<M> extends z.ZodTypeAny ? z.output<ProgressOf<M>> : never;

/**
 * For whom a host asks the worker (a team server's request): a user's token, checked on every
 * request so a replaced token or a removed user stops at once; or a user the host itself vouches
 * for (a viewer's link it signed for them). A UI never sets it: its host does, from how the UI
 * signed in. Absent, the call is the machine's owner's (the app, the CLI, kb serve's own link).
 */
export const CallerSchema = z.union([
  z.object({ token: z.string().min(1).max(256) }).strict(),
  z.object({ user: z.string().min(1).max(63) }).strict(),
]);
export type Caller = z.infer<typeof CallerSchema>;

/** UI → worker. */
export const ClientMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('request'),
    id: z.number().int().nonnegative(),
    method: z.string(),
    params: z.unknown(),
    caller: CallerSchema.optional(),
  }),
  z.object({ type: z.literal('cancel'), id: z.number().int().nonnegative() }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

/** Worker → UI: the answer to a request, or an event (progress of a request, or news for everyone). */
export const ServerMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('response'), id: z.number().int(), result: z.unknown().optional(), error: ErrorPayloadSchema.optional() }),
  z.object({ type: z.literal('event'), id: z.number().int().optional(), event: z.string(), data: z.unknown() }),
]);
export type ServerMessage = z.infer<typeof ServerMessageSchema>;

export interface CallOptions<P = unknown> {
  /** Progress events of this call (ingest, reindex): the worker sends its method's progress schema. */
  onProgress?: (data: P) => void;
  /** Cancels the call in the worker. */
  signal?: AbortSignal;
}

/** One function per method of the contract: what every caller of the engine holds, in-process or not. */
export type KbClient = { [M in Method]: (params: Params<M>, opts?: CallOptions<Progress<M>>) => Promise<Result<M>> };

/**
 * What the UI sees as `window.kb`: the client, plus event subscriptions (`engine`, `ready`). The preload
 * bridge and the web host's WebSocket client both implement it.
 */
export type KbBridge = KbClient & {
  on<E extends EventName>(event: E, handler: (data: EventData<E>) => void): () => void;
  /** Where the UI loads a document's bytes: `/doc/<id>` from kb serve, `kb-doc://doc/<id>` in the app. */
  docUrl(docId: string): string;
  /** The desktop app's extras (absent in a browser): file paths of dropped files, window actions. */
  app?: KbAppBridge;
};

/** Options of a call through the preload bridge: functions cross the context bridge, AbortSignals do not. */
export interface PreloadCallOptions<P = unknown> {
  onProgress?: (data: P) => void;
  /** Called at once with a function that cancels the call. */
  onCancelable?: (cancel: () => void) => void;
}

/** What the preload script exposes as `window.kb` (the renderer adapts it to KbBridge). */
export type KbPreload = { [M in Method]: (params: Params<M>, opts?: PreloadCallOptions<Progress<M>>) => Promise<Result<M>> } & {
  on<E extends EventName>(event: E, handler: (data: EventData<E>) => void): () => void;
  app: KbAppBridge;
};

export interface KbAppBridge {
  /** The path on disk of a dropped File (Electron's webUtils), or '' when it has none. */
  pathForFile(file: File): string;
  /** From the ask panel: show this hit in the main window's viewer. */
  showHit(hit: unknown): void;
  /** Hide the ask panel. */
  closePanel(): void;
  /** The system's file or folder dialog; the paths chosen, or [] when cancelled. */
  pick(kind: 'files' | 'folder'): Promise<string[]>;
  /** An indexed document in its default app, or shown in its folder (by id: main looks the file up). */
  openDocument(docId: string, how: 'open' | 'reveal'): Promise<void>;
  /** An editor link (ui.editor_uri) handed to the system; never file:, javascript: or data:. */
  openUri(uri: string): Promise<void>;
  /** kb's data folder in the system's file manager. */
  revealDataDir(): Promise<void>;
}

/** What the app's windows may ask main to do beyond the RPC (the preload's invoke channel), checked in main. */
export const AppInvokeSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('pick'), kind: z.enum(['files', 'folder']) }),
  z.object({ action: z.literal('reveal-data-dir') }),
  z.object({ action: z.literal('open-document'), doc_id: DocIdSchema, how: z.enum(['open', 'reveal']) }),
  z.object({
    action: z.literal('open-uri'),
    uri: z
      .string()
      .max(4096)
      .refine(
        (u) => /^[a-z][a-z0-9+.-]*:/i.test(u) && !/^(file|javascript|data|vbscript|blob):/i.test(u),
        'an editor link, not a file, script or data URI',
      ),
  }),
]);
export type AppInvoke = z.infer<typeof AppInvokeSchema>;

/** What the app's windows tell main without an answer (the preload's app channel), checked in main. */
export const AppMessageSchema = z.discriminatedUnion('action', [
  /** The ask panel's hit, to show in the main window. */
  z.object({ action: z.literal('show-hit'), hit: SearchHitSchema }),
  z.object({ action: z.literal('close-panel') }),
  /** The main window listens for files to add: what waited may come now. */
  z.object({ action: z.literal('ui-ready') }),
]);
export type AppMessage = z.infer<typeof AppMessageSchema>;
