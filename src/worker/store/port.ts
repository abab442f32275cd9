// The store port: what the engine asks of wherever the index lives. Two adapters implement it —
// SQLite (one file beside LanceDB, the default: sqlite-store.ts) and PostgreSQL (a server a team
// shares: postgres/). Every method is asynchronous because a server is; the SQLite adapter answers at
// once. Every SQL statement lives in an adapter; the services above see only this.
import type {
  ChunkRow,
  CollectionRow,
  DocRow,
  DocStamp,
  DocWithFacts,
  HitRow,
  IngestErrorRow,
  NamedDoc,
  NameWords,
  NewChunk,
  OcrJob,
  OcrOutcome,
  OcrPageRow,
  OriginalRow,
  PageQuery,
  TranscriptJob,
  TranscriptOutcome,
  TranscriptRow,
  UserRow,
  AuditRow,
} from './rows.js';
import type { Filters } from './doc-filter.js';

export interface DocumentsPort {
  /** The types of the indexed documents. */
  indexedTypes(): Promise<Set<string>>;
  count(): Promise<number>;
  /** The documents that may be failed or waiting, with their facts (doc-state.ts decides). */
  unsettled(): Promise<DocWithFacts[]>;
  /** Every document's path, in order. */
  paths(): Promise<string[]>;
  /** How many documents are under a folder (`dir` ends with the separator). */
  countUnder(dir: string): Promise<number>;
  /** The disk the copies kept take, as the index records them: each file's bytes rounded up to the 4 KiB a file system gives it. */
  storedBytes(): Promise<number>;
  anyIndexed(): Promise<boolean>;
  byPath(path: string): Promise<DocRow | undefined>;
  /** Files dropped in a browser under this path in the drop (kb serve keeps them as uploads/<hash>/<name>). */
  droppedAs(name: string): Promise<DocRow[]>;
  byId(id: string): Promise<DocRow | undefined>;
  /** Indexed documents with these bytes (a file that moved keeps its document). */
  indexedWithHash(hash: string): Promise<DocRow[]>;
  upsert(doc: DocRow): Promise<void>;
  setError(id: string, error: string | null): Promise<void>;
  move(id: string, path: string, root: string, mtime: number): Promise<void>;
  setMtime(id: string, mtime: number): Promise<void>;
  setMeta(id: string, m: { title: string; lang: string | null; page_count: number | null }): Promise<void>;
  setDuration(id: string, seconds: number): Promise<void>;
  /** Deletes the document with its chunks, tag links, original and queues, and tags no longer used. */
  delete(id: string): Promise<void>;
  /** Documents whose path is under `dir` (a folder path ending in the separator). */
  under(dir: string): Promise<DocStamp[]>;
  /** Every document with what its status is made of, in path order. */
  list(): Promise<DocWithFacts[]>;
  withFacts(id: string): Promise<DocWithFacts | undefined>;
}

export interface ChunksPort {
  /** The document's chunks become these (its old ones deleted). */
  replace(docId: string, chunks: NewChunk[]): Promise<void>;
  /** Adds chunks to a document (a PDF's pages as they are read). */
  insert(docId: string, chunks: NewChunk[]): Promise<void>;
  byId(id: string): Promise<ChunkRow | undefined>;
  ofDoc(docId: string): Promise<ChunkRow[]>;
  count(docId: string): Promise<number>;
  /** Chunks in the whole index. */
  total(): Promise<number>;
  /** Chunks the session may read, counted (a team's user: their collections'; on SQLite, all). */
  visible(): Promise<number>;
  nextOrdinal(docId: string): Promise<number>;
  /** Indexes the document's chunks again with its current title and tags. */
  refreshWords(docId: string): Promise<void>;
}

export interface TagsPort {
  id(name: string): Promise<number | undefined>;
  /** Each tag with the number of indexed documents carrying it. */
  counts(): Promise<{ name: string; documents: number }[]>;
  /** Tags the document (creating tags as needed); how many links were new. */
  add(docId: string, tags: string[]): Promise<number>;
  of(docId: string): Promise<string[]>;
  /** The tags of many documents at once (a Library page, kb ls): a document without tags is absent. */
  ofMany(docIds: readonly string[]): Promise<Map<string, string[]>>;
  /** The documents carrying every one of these tags. */
  docsWithAll(tags: string[]): Promise<Set<string>>;
}

export interface OriginalsPort {
  set(o: OriginalRow): Promise<void>;
  of(docId: string): Promise<OriginalRow | undefined>;
  /** The blobs some document still keeps. */
  liveBlobs(): Promise<Set<string>>;
  /** Whether some document still keeps this blob. */
  keeps(blob: string): Promise<boolean>;
}

export interface IngestErrorsPort {
  record(path: string, code: string, message: string): Promise<void>;
  clear(path: string): Promise<void>;
  of(path: string): Promise<IngestErrorRow[]>;
}

export interface OcrPagesPort {
  queue(docId: string, pages: number[]): Promise<void>;
  clear(docId: string): Promise<void>;
  pending(): Promise<OcrJob[]>;
  finish(r: OcrOutcome): Promise<void>;
  unreadable(): Promise<{ pages: number; docs: number }>;
  /**
   * Takes a pending page for this process to read; false when it no longer waits, or another process
   * took it less than CLAIM_MS ago (a store one process writes at a time records no claims).
   */
  claim(docId: string, page: number): Promise<boolean>;
  /** Queues again the pages the given languages have not tried; the documents they are in. */
  retryUnreadable(languages: string): Promise<string[]>;
  of(docId: string): Promise<OcrPageRow[]>;
  /** A document's pages as another store recorded them (kb migrate): written as they are. */
  restore(docId: string, pages: OcrPageRow[]): Promise<void>;
}

export interface TranscriptsPort {
  queue(docId: string, status: 'waiting' | 'pending'): Promise<void>;
  pending(): Promise<TranscriptJob[]>;
  waiting(): Promise<Set<string>>;
  /** What waited for a speech model is pending now. */
  wake(): Promise<void>;
  /** Takes a pending recording for this process to transcribe (as OcrPagesPort.claim). */
  claim(docId: string): Promise<boolean>;
  finish(r: TranscriptOutcome): Promise<void>;
  of(docId: string): Promise<TranscriptRow | undefined>;
  /** A document's transcript as another store recorded it (kb migrate): written as it is. */
  restore(docId: string, t: TranscriptRow): Promise<void>;
}

export interface CollectionsPort {
  add(c: CollectionRow): Promise<void>;
  list(): Promise<CollectionRow[]>;
  forget(name: string): Promise<boolean>;
}

export interface LibraryPort {
  page(q: PageQuery): Promise<{ rows: DocWithFacts[]; total: number }>;
}

/** What a search reads to turn ranked chunks into hits: one query per kind of fact, never one per hit. */
export interface HitsPort {
  /** The chunks (with their documents, tags and chunk counts) at these rowids, by rowid. */
  rows(rowids: number[]): Promise<Map<number, HitRow>>;
  /** Each document's tags, in name order. */
  tagsOf(docIds: string[]): Promise<Map<string, string[]>>;
  /** Chunk ids to rowids (the vector side knows ids) and back. */
  rowidsOf(chunkIds: string[]): Promise<Map<string, number>>;
  idsOf(rowids: number[]): Promise<Map<number, string>>;
}

/** Documents by their file name, title or tag (search/names.ts). */
export interface NamesPort {
  /** Documents whose file name (or title) holds every part of `q`, within the filters; `among`: only these documents. */
  matching(field: 'name' | 'title', q: NameWords, filters: Filters, limit: number, among?: string[]): Promise<NamedDoc[]>;
  /** Documents carrying this tag, within the filters. */
  tagged(tag: string, filters: Filters, limit: number): Promise<NamedDoc[]>;
  /** A document's first chunk (to open it at its start), or null when it has none yet. */
  firstChunk(docId: string): Promise<number | null>;
  /** Documents with no passages yet: audio waiting for a transcript, scans for OCR. */
  waiting(): Promise<string[]>;
}

/**
 * How long a claim on waiting work holds: past this, the work is taken as abandoned (its process died)
 * and another may claim it. A long recording is transcribed in less.
 */
export const CLAIM_MS = 60 * 60_000;

/** One unit's kept tops as stored (search/tops.ts encodes and reads the entries). */
export interface StoredTop {
  unit: string;
  /** Chunks the unit was seen in while the entries were kept. */
  matches: number;
  entries: Buffer;
}

/** A chunk as a tops update scores it: its document's title, its heading and text. */
export interface TopsChunk {
  rowid: number;
  title: string;
  heading: string;
  text: string;
}

/** What a search must know before it trusts the tops: the last update's state, and what was written since. */
export interface TopsHead {
  /** The state the last update recorded (search/tops.ts writes it as JSON), or null before the first. */
  state: string | null;
  /** The newest chunk's rowid. */
  lastRowid: number;
  /**
   * Chunks are waiting that the tops have not seen, whatever their rowid. On PostgreSQL a chunk can
   * commit after one with a higher rowid (two writers), so "the rowids past the last update" would miss
   * it; each new chunk is queued instead. SQLite writes one at a time: rowids are the order.
   */
  pending: boolean;
  /** Moves with every chunk written or deleted: chunks the tops have not seen are as they were while it stands. */
  generation: number;
  /**
   * Moves when writes this connection saw were rolled back: what was scored of chunks not yet seen by
   * the tops is void (their rowids come again, over other chunks). Always 0 on PostgreSQL, whose
   * searches see only commits.
   */
  epoch: number;
}

/** The index read at one moment (one transaction), for a tops update. */
export interface TopsReading {
  /** Every unit's stored tops. */
  all(): Promise<StoredTop[]>;
  /** Every word of the index with the number of chunks holding it, in byte order. */
  vocabulary(): AsyncIterable<{ term: string; doc: number }>;
  /**
   * The chunks the tops have not seen, in rowid order: every chunk when `upto` is null; else those
   * written since the update that read up to `upto` (SQLite: the rowids past it; PostgreSQL: its queue).
   */
  unseen(upto: number | null): AsyncIterable<TopsChunk>;
  /** Which of these chunks still exist. */
  existing(rowids: number[]): Promise<Set<number>>;
}

/** The heavy units' kept tops (search/tops.ts): what a search reads, what an update reads and writes. */
export interface TopsPort {
  head(): Promise<TopsHead>;
  get(unit: string): Promise<StoredTop | null>;
  /** How many units are kept. */
  units(): Promise<number>;
  /** Which of these chunks exist in a searchable document that passes the filters. */
  passing(rowids: number[], filters: Filters): Promise<Set<number>>;
  /** Every unit kept. */
  unitNames(): Promise<string[]>;
  /**
   * The chunks the tops have not seen (as TopsReading.unseen says, past `upto`) except the `known`;
   * null when more than `limit` are unseen.
   */
  unseenChunks(upto: number, known: number[], limit: number): Promise<TopsChunk[] | null>;
  /** Runs an update's reads at one moment; null when another process is updating them now. */
  reading<T>(fn: (r: TopsReading) => Promise<T>): Promise<T | null>;
  /**
   * Replaces every unit's tops (`replace`) or the given units', records the state and that the
   * `seen` chunks were read, in one transaction; unless another update recorded a state since
   * `expected` was read (false then).
   */
  write(tops: StoredTop[], state: string, replace: boolean, expected: string | null, seen: number[]): Promise<boolean>;
  /** Forgets every top (the index shrank below where they pay, or its word index is rebuilt). */
  clear(): Promise<void>;
}

/**
 * The originals' bytes, content-addressed by SHA-256: a folder beside the SQLite file (store/blobs.ts),
 * or the PostgreSQL database with this machine's copies of what it opened (store/postgres/blobs.ts),
 * so any server process can serve any document.
 */
export interface BlobsPort {
  has(sha256: string): Promise<boolean>;
  put(sha256: string, bytes: Uint8Array): Promise<void>;
  /** Copies a file in, streamed: a long recording is never held in memory. */
  putFile(sha256: string, source: string): Promise<void>;
  /** A small blob written without a trip through the thread pool per step (an in-process store only). */
  putSync?(sha256: string, bytes: Uint8Array): void;
  /** A file on this machine holding the blob (fetched from the server first if need be); null when there is none. */
  file(sha256: string): Promise<string | null>;
  /** Deletes every blob not in `keep`; how many, and how many bytes were freed. */
  gc(keep: Set<string>): Promise<{ removed: number; bytes: number }>;
  /** Deletes one blob (no document keeps it any more); the bytes freed. */
  drop(sha256: string): Promise<number>;
}

/** A team's accounts, grants and audit trail (a shared store's: PostgreSQL). */
export interface AccountsPort {
  /** False when the name is taken. */
  addUser(u: UserRow): Promise<boolean>;
  users(): Promise<UserRow[]>;
  user(name: string): Promise<UserRow | undefined>;
  /** The user a token's public half names. */
  byTokenId(tokenId: string): Promise<UserRow | undefined>;
  /** Removes a user and every grant to them; false when there is none. */
  removeUser(name: string): Promise<boolean>;
  setToken(name: string, tokenId: string, tokenHash: string): Promise<boolean>;
  /** False when it was granted already. */
  grant(collection: string, grantee: string): Promise<boolean>;
  /** False when it was not granted. */
  revoke(collection: string, grantee: string): Promise<boolean>;
  grants(): Promise<{ collection: string; grantee: string }[]>;
  record(entry: AuditRow): Promise<void>;
  /** The newest entries first. */
  trail(limit: number): Promise<AuditRow[]>;
  /** Runs a change and its audit entry in one transaction. */
  write<T>(fn: (a: AccountsPort) => Promise<T>): Promise<T>;
  /** What the session's user (acting.ts) may see and change, as the database decides it. */
  sight(): Promise<Sight>;
}

/** The collections a user may read and add to; `all` for whoever sees everything (admins, the owner). */
export interface Sight {
  all: boolean;
  readable: string[];
  writable: string[];
}

/** The engine's own data, table by table. Inside `Store.write` they are the transaction's. */
export interface Tables {
  readonly documents: DocumentsPort;
  readonly chunks: ChunksPort;
  readonly tags: TagsPort;
  readonly originals: OriginalsPort;
  readonly errors: IngestErrorsPort;
  readonly ocr: OcrPagesPort;
  readonly transcripts: TranscriptsPort;
  readonly collections: CollectionsPort;
  readonly library: LibraryPort;
  readonly hits: HitsPort;
  readonly names: NamesPort;
}

/**
 * Writes of one document grouped so a crash leaves it whole or absent. SQLite commits a few times a
 * second (each document a savepoint inside the batch); PostgreSQL commits each document on its own.
 */
export interface WriteBatch {
  /** One document's writes: all of them or none. */
  document<T>(fn: (t: Tables) => Promise<T>): Promise<T>;
  /** Commits what the batch holds when it has run long enough. */
  commitIfDue(): Promise<void>;
  /** Commits what it holds. */
  commit(): Promise<void>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Where it is, as it may be shown (no password). */
  readonly where: string;
  /** Reads, and writes that stand alone (each its own transaction). */
  readonly tables: Tables;
  /** Users, grants and the audit trail: a shared store's only (null on SQLite). */
  readonly accounts: AccountsPort | null;
  /**
   * What a search reads: on PostgreSQL with store.read_url, a streaming-replication standby's (a few
   * milliseconds behind the primary); otherwise `tables`. Never written.
   */
  readonly reads: Tables;
  /** Runs fn's writes in one transaction: all of them or none. */
  write<T>(fn: (t: Tables) => Promise<T>): Promise<T>;
  /** Documents written together, each all-or-nothing, committed every `maxMs`. */
  batch(maxMs: number): WriteBatch;
  /**
   * Calls onChange, at most once a second, when another process may have changed the documents (a
   * long-lived host tells its windows to ask again). Resolves to what stops watching.
   */
  watch(onChange: () => void): Promise<() => Promise<void>>;
}

/** A port's synchronous twin: what an adapter whose database answers in-process implements. */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...a: infer A) => Promise<infer R> ? (...a: A) => R : T[K];
};
