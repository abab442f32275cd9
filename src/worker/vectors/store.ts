// Chunk vectors in LanceDB, beside the SQLite store: one table per embedding fingerprint (model,
// dimension, pooling, prefixes, chunker version; table-name.ts), rows keyed by chunk id and carrying the
// filter columns, so filters are a pre-filter.
import * as lancedb from '@lancedb/lancedb';
import { createRequire } from 'node:module';
import type * as Arrow from 'apache-arrow';
import type { VectorTable, VectorTables } from '../store/vector-port.js';
import type { VectorFilter, VectorHit, VectorRow } from '../store/rows.js';
import { OLD_VERSIONS_KEPT_MS } from './retention.js';

// The CommonJS build, the one LanceDB itself requires: importing the ES build would load Arrow a
// second time (~70 ms on every fresh process) and hand LanceDB tables of a foreign Arrow.
const { Field, FixedSizeList, Float32, makeData, makeVector, Table, Utf8, vectorFromArray } = createRequire(import.meta.url)(
  'apache-arrow',
) as typeof Arrow;

/**
 * The index's name says how it compresses: product quantization with a code per 8 dimensions (48 for
 * all-MiniLM-L6-v2). LanceDB's default, one per 16, kept recall@10 at 0.86 on all-MiniLM-L6-v2's real
 * vectors of 125k passages (nprobes 100, refine 10, node_modules/.kb-scratch/pq-variants.mts); one per 8
 * 0.96 in 10.6 ms instead of 14, built in 66 s; one per 4 1.00 but 13.5 ms and 175 s. An index of an
 * older kb (vector_idx, one per 16) is built again under this name.
 */
const INDEX_NAME = 'vector_pq8';
const DIMS_PER_CODE = 8;

const sqlString = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The index's kind, as LanceDB names it; an index of another kind (an older kb's) is built again. */
export const INDEX_TYPE = 'IVF_PQ';
/**
 * How many of the index's partitions a search looks in (LanceDB makes about √rows of them), and how
 * many more candidates than asked it scores again with the full vectors. At 987,197 of the scale
 * bench's vectors: recall@10 against an exact scan 0.99 in 12 ms (20 probes: 0.62; no second scoring:
 * lower still); on real ones see INDEX_NAME.
 */
const NPROBES = 100;
/**
 * Rows added since the index was built are searched exactly: at 113k of all-MiniLM-L6-v2's vectors,
 * 2,048 of them made a search 5 ms slower (8.1 → 13.1 ms p50), and folding them into the index took
 * 0.1 s (node_modules/.kb-scratch/unindexed.mts). So upkeep folds them in from this many on.
 */
const FOLD_ROWS = 1000;
/**
 * Reading the candidates' full vectors again is most of a search's cost: 5 times instead of 10 was
 * 3–4 ms faster in a scratch run at 125k real vectors (node_modules/.kb-scratch/pq48b.mts), but npm run
 * bench -- meaning-cost measured recall@10 0.92 instead of 0.94–0.95 and no faster keystroke.
 */
const REFINE_FACTOR = 10;

/**
 * Whether the approximate index must be built: past annMinRows with none yet, or one kb no longer
 * builds (an older kb's IVF_HNSW_SQ: ten times slower to build, and 0.4× the vectors' size; or its
 * IVF_PQ of coarser codes, named otherwise).
 */
export function indexWanted(rows: number, index: { type: string; name: string } | null, annMinRows: number): boolean {
  return index ? index.type !== INDEX_TYPE || index.name !== INDEX_NAME : rows >= annMinRows;
}

/** The data dir's LanceDB folder of vector tables. */
export function lanceTables(dir: string): VectorTables {
  return {
    open: (name) => VectorStore.open(dir, name),
    drop: (name) => dropVectorTable(dir, name),
  };
}

export class VectorStore implements VectorTable {
  private constructor(
    private readonly db: lancedb.Connection,
    readonly name: string,
    private table: lancedb.Table | null,
  ) {}

  /** Opens the named table; it is created by the first add(). */
  static async open(dir: string, name: string): Promise<VectorStore> {
    // Another process (the CLI beside the app) may add rows or build the index: look for a newer
    // version at most once a second, not on every read.
    const db = await lancedb.connect(dir, { readConsistencyInterval: 1 });
    const table = (await db.tableNames()).includes(name) ? await db.openTable(name) : null;
    return new VectorStore(db, name, table);
  }

  async count(): Promise<number> {
    return this.table ? this.table.countRows() : 0;
  }

  async ids(): Promise<Set<string>> {
    if (!this.table) return new Set();
    // The column read whole: a row object per vector (toArray) held the engine's thread ~40 ms at 100k.
    const ids = (await this.table.query().select(['chunk_id']).toArrow()).getChild('chunk_id');
    const out = new Set<string>();
    if (ids) for (const id of ids as Iterable<string>) out.add(id);
    return out;
  }

  /** LanceDB cannot see SQLite's chunks: the sync compares ids. */
  async difference(): Promise<null> {
    return null;
  }

  async add(rows: VectorRow[]): Promise<void> {
    if (rows.length === 0) return;
    const data = toArrow(rows);
    if (!this.table) this.table = await this.db.createTable(this.name, data);
    else await this.table.add(data);
  }

  /** Rewrites one document's tags column (tags changed, vectors did not). */
  async setTags(docId: string, tags: string): Promise<void> {
    if (!this.table) return;
    await this.table.update({ where: `doc_id = ${sqlString(docId)}`, values: { tags } });
  }

  async rows(chunkIds: string[]): Promise<VectorRow[]> {
    if (!this.table || chunkIds.length === 0) return [];
    const out: VectorRow[] = [];
    for (let i = 0; i < chunkIds.length; i += 500) {
      const found = (await this.table
        .query()
        .where(
          `chunk_id IN (${chunkIds
            .slice(i, i + 500)
            .map(sqlString)
            .join(', ')})`,
        )
        .select(['chunk_id', 'doc_id', 'vector', 'type', 'lang', 'tags', 'path'])
        .toArray()) as (Omit<VectorRow, 'vector'> & { vector: { toArray(): Float32Array } })[];
      for (const r of found) out.push({ ...r, chunk_id: String(r.chunk_id), vector: Float32Array.from(r.vector.toArray()) });
    }
    return out;
  }

  async delete(chunkIds: string[]): Promise<void> {
    if (!this.table || chunkIds.length === 0) return;
    for (let i = 0; i < chunkIds.length; i += 500) {
      await this.table.delete(
        `chunk_id IN (${chunkIds
          .slice(i, i + 500)
          .map(sqlString)
          .join(', ')})`,
      );
    }
  }

  /** The approximate index, if built: its kind, how many rows it covers and how many were added since. */
  async indexStats(): Promise<{ type: string; name: string; indexed: number; unindexed: number } | null> {
    if (!this.table) return null;
    for (const name of await this.vectorIndexes()) {
      const stats = await this.table.indexStats(name);
      if (stats) return { type: stats.indexType, name, indexed: stats.numIndexedRows, unindexed: stats.numUnindexedRows };
    }
    return null;
  }

  /** The names of the indexes on the vectors, kb's current one first. */
  private async vectorIndexes(): Promise<string[]> {
    const names = (await this.table!.listIndices()).filter((i) => i.columns.includes('vector')).map((i) => i.name);
    return names.sort((a, b) => Number(b === INDEX_NAME) - Number(a === INDEX_NAME));
  }

  /** How many data files rows are spread over; many small ones slow every scan. */
  async fragments(): Promise<{ total: number; small: number }> {
    if (!this.table) return { total: 0, small: 0 };
    const f = (await this.table.stats()).fragmentStats;
    return { total: f.numFragments, small: f.numSmallFragments };
  }

  /**
   * Keeps vector search fast as the table grows: past annMinRows, builds the approximate index; later,
   * merges small data files and folds rows added since into the index. LanceDB does the work on its own
   * threads, so the message loop stays free.
   */
  async maintain(annMinRows: number): Promise<'indexed' | 'optimized' | null> {
    const rows = await this.count();
    const index = await this.indexStats();
    if (indexWanted(rows, index, annMinRows)) {
      await this.optimize();
      await this.buildIndex();
      return 'indexed';
    }
    const files = await this.fragments();
    if (files.small > 16 || (index && index.unindexed >= FOLD_ROWS)) {
      await this.optimize();
      return 'optimized';
    }
    return null;
  }

  /**
   * Builds (or rebuilds) the IVF_PQ index over the vectors on LanceDB's own threads, then drops an
   * older kb's index (searches use it until this one is there). At 987,197 vectors of 384 dimensions
   * the coarser codes took 39 s and 29 MB, where IVF_HNSW_SQ took 650 s and 578 MB (0.4× the vectors
   * themselves) for the same recall once its candidates are scored again (search).
   */
  async buildIndex(): Promise<void> {
    if (!this.table) return;
    const field = (await this.table.schema()).fields.find((f) => f.name === 'vector');
    const dim = (field?.type as { listSize?: number } | undefined)?.listSize ?? 0;
    const codes = dim > 0 && dim % DIMS_PER_CODE === 0 ? { numSubVectors: dim / DIMS_PER_CODE } : {};
    await this.table.createIndex('vector', {
      name: INDEX_NAME,
      config: lancedb.Index.ivfPq({ distanceType: 'cosine', ...codes }),
      replace: true,
    });
    for (const name of await this.vectorIndexes()) if (name !== INDEX_NAME) await this.table.dropIndex(name);
  }

  /**
   * Loads the index into memory on LanceDB's threads, so that a fresh process's first search does not
   * pay for it; meant to run while the embedding model loads. A table without an index has nothing to load.
   */
  async prewarm(): Promise<void> {
    if (!this.table) return;
    try {
      await this.table.prewarmIndex(INDEX_NAME);
    } catch {
      // no index yet: searches scan, and there is nothing to warm
    }
  }

  /**
   * Merges small data files, folds rows added since into the index, and deletes the files of versions
   * older than OLD_VERSIONS_KEPT_MS: until then a compaction or an index build keeps the table twice
   * on disk.
   */
  async optimize(): Promise<void> {
    if (!this.table) return;
    await this.table.optimize({ cleanupOlderThan: new Date(Date.now() - OLD_VERSIONS_KEPT_MS) });
  }

  /** Nearest chunks by cosine similarity; exact skips the approximate index (recall checks). */
  async search(vector: Float32Array, k: number, f: VectorFilter, opts: { exact?: boolean } = {}): Promise<VectorHit[]> {
    if (!this.table) return [];
    const where: string[] = [];
    if (f.type) where.push(`type = ${sqlString(f.type)}`);
    if (f.lang) where.push(`lang = ${sqlString(f.lang)}`);
    for (const t of f.tags) where.push(`tags LIKE ${sqlString(`%|${t}|%`)}`);
    if (f.pathDocs) {
      if (f.pathDocs.length === 0) return [];
      where.push(`doc_id IN (${f.pathDocs.map(sqlString).join(', ')})`);
    }
    let q = this.table.vectorSearch(Array.from(vector)).distanceType('cosine');
    // The index keeps compressed vectors: its candidates are scored again with the stored ones.
    q = opts.exact ? q.bypassVectorIndex() : q.nprobes(NPROBES).refineFactor(REFINE_FACTOR);
    if (where.length > 0) q = q.where(where.join(' AND ')); // a pre-filter: LanceDB filters before the top-k cut
    // Only what the hits need: every column, the vector among them, took ~2 ms more a search to decode.
    const rows = (await q.select(['chunk_id', '_distance']).limit(k).toArray()) as { chunk_id: string; _distance: number }[];
    return rows.map((r) => ({ chunk_id: r.chunk_id, similarity: 1 - r._distance }));
  }

  async drop(): Promise<void> {
    await dropTable(this.db, this.name);
    this.table = null;
  }
}

/**
 * Rows as an Arrow table built from one Float32Array: converting 2,048 rows of JS objects (LanceDB's
 * default) holds the engine's thread ~80 ms; this takes a few.
 */
function toArrow(rows: VectorRow[]): Arrow.Table {
  const dim = rows[0]!.vector.length;
  const flat = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => flat.set(r.vector, i * dim));
  const values = makeData({ type: new Float32(), length: flat.length, nullCount: 0, data: flat });
  const vector = makeVector(
    makeData({ type: new FixedSizeList(dim, new Field('item', new Float32(), true)), length: rows.length, nullCount: 0, child: values }),
  );
  const text = (k: 'chunk_id' | 'doc_id' | 'type' | 'lang' | 'tags' | 'path') =>
    vectorFromArray(
      rows.map((r) => r[k]),
      new Utf8(),
    );
  return new Table({
    chunk_id: text('chunk_id'),
    doc_id: text('doc_id'),
    vector,
    type: text('type'),
    lang: text('lang'),
    tags: text('tags'),
    path: text('path'),
  });
}

async function dropTable(db: lancedb.Connection, name: string): Promise<void> {
  if ((await db.tableNames()).includes(name)) await db.dropTable(name);
}

/** Drops a table by name, if it is there (a replaced or abandoned one). */
export async function dropVectorTable(dir: string, name: string): Promise<void> {
  await dropTable(await lancedb.connect(dir), name);
}
