// The rows the engine reads and writes, whichever store holds them (store/port.ts): SQLite's tables and
// PostgreSQL's have these shapes.
import type { Anchor } from '../../shared/wire.js';
import type { DocType } from '../../shared/doc-types.js';
import type { Role } from '../../shared/cli-output.js';

/** A row of `documents`, as migrations 1 and 8 made it. */
export interface DocRow {
  id: string;
  path: string;
  /** The folder it was added under (a collection's root), or null. */
  root: string | null;
  title: string;
  type: DocType;
  lang: string | null;
  content_hash: string;
  size: number;
  /** ms since the epoch; 0 makes the next reconcile read it again. */
  mtime: number;
  page_count: number | null;
  /** Seconds of sound (audio and video). */
  duration: number | null;
  parser_version: number;
  /** What the table records; what a view shows (waiting too) is derived by doc-state.ts. */
  status: 'indexed' | 'failed';
  error: string | null;
  original: 'copy' | 'reference';
  added_at: number;
  updated_at: number;
  author?: string | null | undefined;
  created?: string | null | undefined;
}

/** What a document's status is derived from, beside its row (see read/doc-state.ts). */
export interface DocFacts {
  chunk_count: number;
  /** The transcript's state for audio and video: waiting, pending, done, failed; null for the rest. */
  transcript_status: string | null;
  ocr_pending: number;
  ocr_failed: number;
  /** Pages OCR read too poorly to index: they need a language whose data is not installed. */
  ocr_unreadable: number;
  /** 1 when the latest attempt to read the file failed (a success clears ingest_errors). */
  latest_failed: number;
}

export type DocWithFacts = DocRow & DocFacts;

/** Just enough of a document to reconcile a folder with the disk. */
export type DocStamp = Pick<DocRow, 'id' | 'path' | 'size' | 'mtime' | 'status' | 'added_at'>;

/** A row of `chunks`: its anchor is JSON text (inspect parses it). */
export interface ChunkRow {
  rowid: number;
  id: string;
  doc_id: string;
  ordinal: number;
  /** Heading path or symbol path: the citation's section label. */
  heading: string;
  text: string;
  anchor: string;
  chunker_version: number;
}

export interface NewChunk {
  id: string;
  ordinal: number;
  heading: string;
  text: string;
  anchor: Anchor;
  chunker_version: number;
}

/** A page waiting for OCR. */
export interface OcrJob {
  doc_id: string;
  page: number;
  path: string;
  type: string;
  content_hash: string;
}

export interface OcrPageRow {
  page: number;
  status: string;
  confidence: number | null;
  error: string | null;
  /** The OCR languages a page was too unreadable with (it needs another); null otherwise. */
  unreadable_with: string | null;
}

/** An audio or video document for the transcription pass. */
export interface TranscriptJob {
  doc_id: string;
  path: string;
  content_hash: string;
  title: string;
}

export interface TranscriptRow {
  status: string;
  model: string | null;
  language: string | null;
  /** JSON: the timed segments. */
  segments: string | null;
  error: string | null;
}

export interface CollectionRow {
  name: string;
  root: string;
  tags: string[];
  glob: string | null;
  added_at: number;
}

export type LibrarySort = 'title' | 'type' | 'chunks' | 'size' | 'status' | 'updated' | 'path';

export interface PageQuery {
  sort: LibrarySort;
  down: boolean;
  /** Words a title, a path or a tag contains (case-insensitively); null for every document. */
  text: string | null;
  /** Only the documents of this status. */
  only: 'indexed' | 'failed' | 'waiting' | null;
  failed: readonly string[];
  waiting: readonly string[];
  limit: number;
  offset: number;
  /** Sorted by path: after this one (keyset paging). */
  after: string | null;
}

export interface OriginalRow {
  doc_id: string;
  mode: 'copy' | 'reference';
  blob: string | null;
  sha256: string;
}

export interface IngestErrorRow {
  path: string;
  code: string;
  message: string;
  at: number;
}

/** A chunk with its document, as a search hit is made from it (search/hydrate.ts). */
export interface HitRow {
  rowid: number;
  id: string;
  doc_id: string;
  ordinal: number;
  text: string;
  heading: string;
  /** JSON text of the chunk's anchor. */
  anchor: string;
  path: string;
  title: string;
  type: DocType;
  original: 'copy' | 'reference';
  /** The document's tags, in name order, and how many chunks it has. */
  tags: string[];
  total_chunks: number;
}

/** A document found by its name, title or tag. */
export interface NamedDoc {
  id: string;
  path: string;
  title: string;
}

/** What a name must hold, every part of it: words as typed (a half-typed one as a prefix), phrases as written. */
export interface NameWords {
  words: { text: string; prefix: boolean }[];
  phrases: string[][];
}

/** How one page's OCR went. */
export interface OcrOutcome {
  doc_id: string;
  page: number;
  status: 'done' | 'failed';
  confidence: number | null;
  error: string | null;
  /** The OCR languages the page was too unreadable with (it needs another). */
  unreadable_with?: string | null;
}

/** How one recording's transcription went. */
export interface TranscriptOutcome {
  doc_id: string;
  status: 'done' | 'failed';
  model: string | null;
  language: string | null;
  segments: string | null;
  error: string | null;
}

/** A chunk a word search found, in the store's order; `raw` is the store's own score, lower is better. */
export interface Candidate {
  rowid: number;
  raw: number;
}

/** A chunk's title (its document's), heading and text, as the ranking reads a candidate. */
export interface ChunkText {
  title: string;
  heading: string;
  text: string;
}

/** Which embedding model's table holds the index's vectors (the vector half records it in meta). */
export interface Binding {
  model: string;
  fingerprint: string;
  table: string;
  /** The chunk generation when the table last held exactly the chunks' vectors. */
  synced_generation?: number;
}

/** `live`: the table searches read; `pending`: the one `kb reindex` is building (kept across an interruption, to resume). */
export type BindingSlot = 'live' | 'pending';

/** The meta keys the bindings are kept under, in either store. */
export const BINDING_KEY: Record<BindingSlot, string> = { live: 'embedding.binding', pending: 'embedding.pending' };

/** A chunk as the vector half embeds it, with its document's filter columns. */
export interface FeedRow {
  id: string;
  doc_id: string;
  heading: string;
  text: string;
  type: string;
  lang: string;
  path: string;
  /** `|a|b|`: every tag between bars, so a filter can ask for `%|a|%`. */
  tags: string;
}

/** A chunk's vector with the filter columns a vector search narrows by. */
export interface VectorRow {
  chunk_id: string;
  doc_id: string;
  vector: Float32Array;
  type: string;
  lang: string;
  /** Tags as `|a|b|`, so a tag filter is a LIKE '%|a|%'. */
  tags: string;
  path: string;
}

export interface VectorFilter {
  type?: string | undefined;
  lang?: string | undefined;
  tags: string[];
  /** Documents allowed by a path glob (resolved by the caller). */
  pathDocs?: string[] | undefined;
}

export interface VectorHit {
  chunk_id: string;
  /** Cosine similarity, -1..1. */
  similarity: number;
}

export type { Role };

/** A team member's account (the token itself is never stored: its public half and a hash of the rest). */
export interface UserRow {
  name: string;
  role: Role;
  token_id: string;
  token_hash: string;
  created_at: number;
}

/** One change of users, grants or collections, and who made it. */
export interface AuditRow {
  at: number;
  actor: string;
  action: string;
  target: string;
  detail: string | null;
}
