// Chunk vectors on PostgreSQL, with pgvector: one table per embedding fingerprint, as LanceDB keeps
// them (vectors/store.ts), rows keyed by chunk id and carrying the filter columns. Each row refers to
// its chunk (ON DELETE CASCADE): a chunk deleted takes its vectors with it in the same transaction, and
// a vector is never written for a chunk already gone. Past ann_min_rows an HNSW index (cosine) is
// built without blocking writers (CONCURRENTLY); pgvector keeps it up as rows come. A filtered search
// asks the index to keep scanning until enough rows pass (hnsw.iterative_scan).
import { currentActor } from '../../acting.js';
import { BINDING_KEY, type VectorFilter, type VectorHit, type VectorRow } from '../rows.js';
import type { VectorTable, VectorTables } from '../vector-port.js';
import type { PgPool } from './connect.js';
import { first, rows, value } from './tables/sql.js';

/** What the index keeps looking at per search: recall@10 against an exact scan ≥ 0.95 at 100,000 (bench). */
const EF_SEARCH = 100;
/**
 * How many index entries a team user's scan may visit when only row-level security thins it: the
 * larger of MIN_SCAN and SCAN_PER_ROW for each row asked. pgvector's own bound (20,000) let a reader whose
 * collections lay far from a query walk the graph for 17 ms (30 under a team's load) for neighbours
 * that were no near match; a query near what they may read finds it within a few hundred (recall@10
 * 1.00 at every bound from 500 on, bench passages as queries). A scan that meets the bound answers
 * with what it found; the words still answer the rest.
 */
const SCAN_PER_ROW = 50;
const MIN_SCAN = 2000;
/** Rows written per statement. */
const WRITE_BATCH = 500;

const INDEX_TYPE = 'HNSW';

/** A table name kb made (vectors/table-name.ts: letters, digits, underscores) as an identifier. */
function ident(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`not a vector table name: ${name}`);
  return `"${name}"`;
}

/** pgvector's text form; nine significant digits give every float32 back exactly, in half the characters. */
const vectorText = (v: Float32Array): string => `[${Array.from(v, (x) => x.toPrecision(9)).join(',')}]`;

export class PgVectorTables implements VectorTables {
  constructor(
    private readonly pool: PgPool,
    /** Where searches read (a hot standby's pool, store.read_url). */
    private readonly readPool: PgPool = pool,
  ) {}

  async open(name: string): Promise<VectorTable> {
    return new PgVectorTable(this.pool, name, this.readPool);
  }

  async drop(name: string): Promise<void> {
    await this.pool.query('SELECT kb_drop_vectors($1)', [name]);
  }
}

class PgVectorTable implements VectorTable {
  constructor(
    private readonly pool: PgPool,
    readonly name: string,
    private readonly readPool: PgPool,
  ) {}

  private get table(): string {
    return ident(this.name);
  }

  private get index(): string {
    return ident(`${this.name}_hnsw`);
  }

  private async exists(pool = this.pool): Promise<boolean> {
    return (await value<string | null>(pool, 'SELECT to_regclass($1)::text', [this.name])) != null;
  }

  async count(): Promise<number> {
    if (!(await this.exists())) return 0;
    return (await value<number>(this.pool, `SELECT count(*) FROM ${this.table}`)) ?? 0;
  }

  async ids(): Promise<Set<string>> {
    if (!(await this.exists())) return new Set();
    return new Set((await rows<{ chunk_id: string }>(this.pool, `SELECT chunk_id FROM ${this.table}`)).map((r) => r.chunk_id));
  }

  async difference(): Promise<{ missing: string[]; stale: string[] }> {
    // A vector cannot outlive its chunk here (ON DELETE CASCADE): only the missing are asked for.
    if (!(await this.exists()))
      return { missing: (await rows<{ id: string }>(this.pool, 'SELECT id FROM chunks')).map((r) => r.id), stale: [] };
    if (await this.live()) {
      // The live table's are queued (migration 11): what the last sync embedded leaves the queue, the rest is missing.
      await this.pool.query(`DELETE FROM vector_queue q USING ${this.table} v WHERE v.chunk_id = q.chunk_id`);
      return { missing: (await rows<{ id: string }>(this.pool, 'SELECT chunk_id AS id FROM vector_queue')).map((r) => r.id), stale: [] };
    }
    const missing = await rows<{ id: string }>(
      this.pool,
      `SELECT c.id FROM chunks c WHERE NOT EXISTS (SELECT 1 FROM ${this.table} v WHERE v.chunk_id = c.id)`,
    );
    return { missing: missing.map((r) => r.id), stale: [] };
  }

  /** Whether this is the table searches use (the live binding's), whose missing vectors are queued. */
  private async live(): Promise<boolean> {
    const table = await value<string | null>(this.pool, "SELECT value::jsonb ->> 'table' FROM meta WHERE key = $1", [BINDING_KEY.live]);
    return table === this.name;
  }

  /**
   * Created by the first rows, whose length is the vectors' dimension — by the schema's owner
   * (migration 15), so a server that connects as a role owning nothing cannot switch its row-level
   * security off.
   */
  private async create(dimension: number): Promise<void> {
    await this.pool.query('SELECT kb_create_vectors($1, $2)', [this.name, Math.trunc(dimension)]);
  }

  /** Rows of chunks still there; a chunk another process embedded meanwhile keeps its vector. */
  async add(batch: VectorRow[]): Promise<void> {
    if (batch.length === 0) return;
    if (!(await this.exists())) await this.create(batch[0]!.vector.length);
    for (let i = 0; i < batch.length; i += WRITE_BATCH) {
      const part = batch.slice(i, i + WRITE_BATCH);
      await this.pool.query(
        `INSERT INTO ${this.table} (chunk_id, doc_id, embedding, type, lang, tags, path)
         SELECT u.chunk_id, u.doc_id, u.v::vector, u.type, u.lang, u.tags, u.path
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
           AS u (chunk_id, doc_id, v, type, lang, tags, path)
         JOIN chunks c ON c.id = u.chunk_id
         ON CONFLICT (chunk_id) DO NOTHING`,
        [
          part.map((r) => r.chunk_id),
          part.map((r) => r.doc_id),
          part.map((r) => vectorText(r.vector)),
          part.map((r) => r.type),
          part.map((r) => r.lang),
          part.map((r) => r.tags),
          part.map((r) => r.path),
        ],
      );
    }
  }

  async rows(chunkIds: string[]): Promise<VectorRow[]> {
    if (chunkIds.length === 0 || !(await this.exists())) return [];
    const r = await rows<Omit<VectorRow, 'vector'> & { v: string }>(
      this.pool,
      `SELECT chunk_id, doc_id, embedding::text AS v, type, lang, tags, path FROM ${this.table} WHERE chunk_id = ANY ($1::text[])`,
      [chunkIds],
    );
    return r.map(({ v, ...x }) => ({ ...x, vector: Float32Array.from(JSON.parse(v) as number[]) }));
  }

  async setTags(docId: string, tags: string): Promise<void> {
    if (!(await this.exists())) return;
    await this.pool.query(`UPDATE ${this.table} SET tags = $2 WHERE doc_id = $1`, [docId, tags]);
  }

  async delete(chunkIds: string[]): Promise<void> {
    if (chunkIds.length === 0 || !(await this.exists())) return;
    await this.pool.query(`DELETE FROM ${this.table} WHERE chunk_id = ANY ($1::text[])`, [chunkIds]);
  }

  /** The HNSW index, when built and valid (a concurrent build that failed leaves an invalid one). */
  private async indexState(): Promise<'valid' | 'invalid' | null> {
    const r = await first<{ valid: boolean }>(
      this.pool,
      `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
      [`${this.name}_hnsw`],
    );
    return r ? (r.valid ? 'valid' : 'invalid') : null;
  }

  async indexStats(): Promise<{ type: string; indexed: number; unindexed: number } | null> {
    if (!(await this.exists()) || (await this.indexState()) !== 'valid') return null;
    // pgvector adds every row to the graph as it is written: nothing waits to be indexed.
    return { type: INDEX_TYPE, indexed: await this.count(), unindexed: 0 };
  }

  /**
   * Past annMinRows, builds the HNSW index; after that pgvector keeps it up itself. The table's owner
   * builds it without blocking writes (a failed build is dropped and built again); a server connecting
   * as a role that owns nothing asks the owner's function (migration 15), whose build makes writes to
   * this table wait.
   */
  async maintain(annMinRows: number): Promise<'indexed' | 'optimized' | null> {
    if (!(await this.exists())) return null;
    const state = await this.indexState();
    if (state === 'valid' || (await this.count()) < annMinRows) return null;
    const owns = await value<boolean>(
      this.pool,
      "SELECT pg_has_role(current_user, relowner, 'USAGE') FROM pg_class WHERE oid = to_regclass($1)",
      [this.name],
    );
    if (!owns) {
      await this.pool.query('SELECT kb_index_vectors($1)', [this.name]);
      return 'indexed';
    }
    const client = await this.pool.connect();
    try {
      if (state === 'invalid') await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${this.index}`);
      // The graph built in memory, not on disk: a build within maintenance_work_mem is many times faster.
      await client.query("SET maintenance_work_mem = '512MB'");
      await client.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${this.index} ON ${this.table} USING hnsw (embedding vector_cosine_ops)`);
      return 'indexed';
    } finally {
      await client.query('RESET maintenance_work_mem').catch(() => undefined);
      client.release();
    }
  }

  /** The index lives in shared buffers once read; nothing to load ahead. */
  async prewarm(): Promise<void> {}

  /** Dead rows are the autovacuum's; nothing is left behind by a build. */
  async optimize(): Promise<void> {}

  async search(vector: Float32Array, k: number, f: VectorFilter, opts: { exact?: boolean } = {}): Promise<VectorHit[]> {
    if (!(await this.exists(this.readPool))) return [];
    const where: string[] = [];
    const values: unknown[] = [vectorText(vector), k];
    const next = (v: unknown): string => {
      values.push(v);
      return `$${values.length}`;
    };
    if (f.type) where.push(`type = ${next(f.type)}`);
    if (f.lang) where.push(`lang = ${next(f.lang)}`);
    for (const t of f.tags) where.push(`tags LIKE ${next(`%|${t.replace(/[\\%_]/g, (c) => `\\${c}`)}|%`)}`);
    if (f.pathDocs) {
      if (f.pathDocs.length === 0) return [];
      where.push(`doc_id IN (SELECT unnest(${next(f.pathDocs)}::text[]))`);
    }
    const client = await this.readPool.connect();
    try {
      // One round trip for the transaction and its settings. A filter — or a team's user, whose rows
      // row-level security thins out — keeps the index scanning until k rows pass, rather than
      // cutting at ef_search first. A filter of kb's own may leave few rows (a rare tag): the
      // planner may read them all, exactly, and the scan keeps pgvector's bound; row-level security
      // alone is held to the bound above.
      const settings = opts.exact
        ? ['enable_indexscan = off']
        : where.length > 0
          ? [`hnsw.ef_search = ${EF_SEARCH}`, "hnsw.iterative_scan = 'relaxed_order'"]
          : currentActor() !== undefined
            ? [
                `hnsw.ef_search = ${EF_SEARCH}`,
                "hnsw.iterative_scan = 'relaxed_order'",
                `hnsw.max_scan_tuples = ${Math.max(MIN_SCAN, SCAN_PER_ROW * Math.trunc(k))}`,
              ]
            : [`hnsw.ef_search = ${EF_SEARCH}`];
      await client.query(['BEGIN', ...settings.map((x) => `SET LOCAL ${x}`)].join('; '));
      const r = await client.query<{ chunk_id: string; distance: number }>(
        `SELECT chunk_id, embedding <=> $1::vector AS distance FROM ${this.table}
         ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY embedding <=> $1::vector LIMIT $2`,
        values,
      );
      await client.query('COMMIT');
      // relaxed_order may hand back neighbours slightly out of order: they are put in order here.
      return r.rows.map((x) => ({ chunk_id: x.chunk_id, similarity: 1 - Number(x.distance) })).sort((a, b) => b.similarity - a.similarity);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async drop(): Promise<void> {
    await this.pool.query('SELECT kb_drop_vectors($1)', [this.name]);
  }
}
