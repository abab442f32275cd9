// The store port's vector half (port.ts is the rest): the bindings and chunks to embed that live with
// the index (VectorSidePort), and the tables of vectors themselves — LanceDB beside SQLite, pgvector in
// PostgreSQL (VectorTable, VectorTables).
import type { Binding, BindingSlot, FeedRow, VectorFilter, VectorHit, VectorRow } from './rows.js';

/**
 * What the vector half keeps in the store and reads of it: the bindings (which model's table is live,
 * which one a reindex builds), the chunk generation and count, the chunks to embed.
 */
export interface VectorSidePort {
  binding(slot?: BindingSlot): Promise<Binding | null>;
  setBinding(slot: BindingSlot, b: Binding | null): Promise<void>;
  /** The table a reindex built goes live, and the pending slot empties, in one transaction. */
  promote(built: Binding): Promise<void>;
  /** Records that `table` held exactly the chunks' vectors at `generation`, if it is still the table in `slot`. */
  markSynced(slot: BindingSlot, table: string, generation: number): Promise<void>;
  /** Moves with every change of the chunks, by any process. */
  generation(): Promise<number>;
  chunkCount(): Promise<number>;
  chunkIds(): Promise<Set<string>>;
  /** These chunks' texts with their documents' filter columns. */
  feed(chunkIds: string[]): Promise<FeedRow[]>;
  /** A document's tags in the vector rows' form (`|a|b|`). */
  tagsOf(docId: string): Promise<string>;
  /** Runs an embedding pass: on a shared store one process at a time (another waits, then finds its work done). */
  embedding<T>(fn: () => Promise<T>): Promise<T>;
}

/** One embedding model's vectors (LanceDB's in vectors/store.ts, pgvector's in store/postgres/vectors.ts). */
export interface VectorTable {
  readonly name: string;
  count(): Promise<number>;
  ids(): Promise<Set<string>>;
  /**
   * What a sync must do — the chunks without a vector, the vectors without a chunk — asked of the
   * store itself where chunks and vectors live together (PostgreSQL: the live table's queue, another
   * table's anti-join; never every id of both in memory, which cost a team server 2 s of CPU and
   * 200,000 strings for each note an editor added). Null where they do not (LanceDB beside SQLite):
   * the sync compares ids() with the chunks'.
   */
  difference(): Promise<{ missing: string[]; stale: string[] } | null>;
  add(rows: VectorRow[]): Promise<void>;
  /** Rewrites one document's tags column (tags changed, vectors did not). */
  setTags(docId: string, tags: string): Promise<void>;
  delete(chunkIds: string[]): Promise<void>;
  /** These chunks' rows, vectors and all (kb migrate copies them to another store). */
  rows(chunkIds: string[]): Promise<VectorRow[]>;
  /** The approximate index, if built: its kind, how many rows it covers and how many were added since. */
  indexStats(): Promise<{ type: string; indexed: number; unindexed: number } | null>;
  /** Keeps searches fast as the table grows (the approximate index past annMinRows, and its upkeep); what it did. */
  maintain(annMinRows: number): Promise<'indexed' | 'optimized' | null>;
  /** Loads what a first search would wait for, while the model loads. */
  prewarm(): Promise<void>;
  /** Gives back what replaced versions of the table hold (kb gc). */
  optimize(): Promise<void>;
  /** Nearest chunks by cosine similarity; `exact` skips the approximate index (recall checks). */
  search(vector: Float32Array, k: number, f: VectorFilter, opts?: { exact?: boolean }): Promise<VectorHit[]>;
  drop(): Promise<void>;
}

/** Where a store's vector tables live. */
export interface VectorTables {
  /** The named table (created by its first rows). */
  open(name: string): Promise<VectorTable>;
  /** Drops a table by name, if it is there (a replaced or abandoned one). */
  drop(name: string): Promise<void>;
}
