// The vector half of the engine: the installed embedding model and its vector table (LanceDB beside
// SQLite, pgvector on PostgreSQL), kept in step with the store's chunks. sync() embeds chunks that have
// no vector and deletes vectors whose chunk is gone, so it serves ingest (lexical chunks are committed
// first and searchable at once), removal, and recovery after a crash or a table deleted behind kb's back.
import { asEngine } from '../acting.js';
import { searchesQuiet } from '../search-traffic.js';
import { join } from 'node:path';
import type { VectorSidePort, VectorTable, VectorTables } from '../store/vector-port.js';
import type { Binding, BindingSlot, VectorFilter, VectorHit, VectorRow } from '../store/rows.js';
import type { PassageEmbedder, TextEmbedder } from '../embed/provider.js';
import { openEmbedder, resolveEmbedding, type Unavailable } from '../embed/resolve.js';
import type { EmbeddingSpec } from '../embed/spec.js';
import { CHUNKER_VERSION } from '../version.js';
import { tableName } from './table-name.js';

/** Chunks embedded per round; between rounds the engine's message loop runs (searches answer). */
const SYNC_BATCH = 128;
/** Vectors written to LanceDB per add: each add is a data file, and many small files slow scans. */
const WRITE_BATCH = 2048;

export type { Unavailable } from '../embed/resolve.js';

/** The embedding model the config names, its prefix overrides, and where Ollama runs. */
export interface EmbeddingChoice {
  ref: string;
  overrides: { query_prefix?: string | undefined; passage_prefix?: string | undefined };
  ollamaHost: string;
}

export interface SyncProgress {
  done: number;
  total: number;
}

/** What makes two tables' vectors comparable. Registry models keep the fingerprint they always had. */
export function fingerprintOf(spec: EmbeddingSpec): string {
  return JSON.stringify({
    model: spec.id,
    dimension: spec.dimension,
    pooling: spec.pooling,
    query: spec.queryPrefix,
    passage: spec.passagePrefix,
    chunker: CHUNKER_VERSION,
    ...(spec.provider !== 'onnx' ? { provider: spec.provider } : {}),
    ...(spec.normalize ? {} : { normalize: false }),
    ...(spec.importedAt ? { imported: spec.importedAt } : {}),
  });
}

/** Query vectors kept (a few KB each). */
const RECENT_QUERIES = 64;

export class Semantic {
  private inflight = 0;
  private readonly recent = new Map<string, Float32Array>();
  private closeRequested = false;
  /** Chunks are embedded on a thread of their own, started on the first sync (see embed/threaded.ts). */
  private passages?: PassageEmbedder;
  /** The table's upkeep under way, if any. */
  private upkeep: Promise<unknown> | null = null;

  constructor(
    private readonly side: VectorSidePort,
    readonly spec: EmbeddingSpec,
    readonly embedder: TextEmbedder,
    readonly store: VectorTable,
    /** Which binding this table is: the live one, or the one a reindex is building. */
    private readonly slot: BindingSlot,
  ) {}

  /**
   * The configured model over the live table, binding the index to it if nothing is bound yet.
   * Otherwise why there are no vectors: no model, or vectors that belong to another model.
   */
  static async open(dataDir: string, side: VectorSidePort, tables: VectorTables, choice: EmbeddingChoice): Promise<Semantic | Unavailable> {
    const resolved = resolveEmbedding(join(dataDir, 'models'), choice.ref, choice.overrides);
    if ('unavailable' in resolved) return resolved;
    const loading = openEmbedder(resolved, choice.ollamaHost);
    loading.catch(() => undefined); // awaited below; meanwhile the table opens
    let spec = resolved.spec;
    if (spec.dimension === 0) {
      // Ollama says a model's dimension only by embedding: a server that is down leaves words only, for now.
      const e = await loading.catch((err: unknown) => err as Error);
      if (e instanceof Error) return { unavailable: e.message, retry: true };
      spec = e.spec;
    }
    const fingerprint = fingerprintOf(spec);
    let live = await side.binding();
    if (live && live.fingerprint !== fingerprint) {
      const chunks = await side.chunkCount();
      if (chunks > 0) {
        void loading.then(
          (e) => e.close(),
          () => undefined,
        );
        return { unavailable: mismatch(live, spec) };
      }
      live = null; // nothing embedded yet: the configured model simply takes over
    }
    if (!live) {
      live = { model: spec.id, fingerprint, table: tableName(fingerprint) };
      await side.setBinding('live', live);
    }
    const store = await tables.open(live.table);
    const warm = store.prewarm(); // on LanceDB's threads, while the model loads on this one
    const embedder = await loading;
    await warm;
    return new Semantic(side, embedder.spec, embedder, store, 'live');
  }

  /**
   * Brings the vector table in line with SQLite's chunks. With ifChanged, a table already synced at the
   * current chunk generation (and holding as many rows as there are chunks) is left alone.
   */
  async sync(
    opts: { onProgress?: (p: SyncProgress) => void; signal?: AbortSignal; ifChanged?: boolean } = {},
  ): Promise<{ embedded: number; deleted: number }> {
    // The engine's work, whoever's ingest asked for it: it embeds every passage that waits, and a
    // team's user's row-level security made finding them cost a check per row (190 ms a note at 100k).
    return asEngine(() => this.side.embedding(() => this.syncNow(opts)));
  }

  /** What a sync must do, from every id of both sides (a store that cannot say itself: LanceDB). */
  private async compared(): Promise<{ missing: string[]; stale: string[] }> {
    const inDb = await this.side.chunkIds();
    const inStore = await this.store.ids();
    return { missing: [...inDb].filter((id) => !inStore.has(id)), stale: [...inStore].filter((id) => !inDb.has(id)) };
  }

  private async syncNow(opts: { onProgress?: (p: SyncProgress) => void; signal?: AbortSignal; ifChanged?: boolean }): Promise<{
    embedded: number;
    deleted: number;
  }> {
    const side = this.side;
    const generation = await side.generation();
    // What the table lacks, asked of the store once (undefined: not yet; null: it cannot say, LanceDB).
    let told: { missing: string[]; stale: string[] } | null | undefined;
    if (opts.ifChanged) {
      const b = await side.binding(this.slot);
      if (b?.table === this.store.name && b.synced_generation === generation) {
        // Synced at this generation: whether the table still holds a vector for every chunk, as the
        // store says, else by counts (counting 100,000 vectors took PostgreSQL 80 ms).
        told = await this.store.difference();
        const inStep = told
          ? told.missing.length === 0 && told.stale.length === 0
          : (await this.store.count()) === (await side.chunkCount());
        if (inStep) return { embedded: 0, deleted: 0 };
      }
    }
    const { missing, stale } = (told === undefined ? await this.store.difference() : told) ?? (await this.compared());
    await this.store.delete(stale);
    let done = 0;
    let pendingRows: VectorRow[] = [];
    const flush = async (): Promise<void> => {
      await this.store.add(pendingRows);
      done += pendingRows.length;
      // Rows not yet in the approximate index are searched exactly, which a long sync made slower
      // with every write: they are folded in as they come (never a first index here: that is upkeep's).
      // Not beside upkeep already at work on the table (two would conflict); a fold that fails is
      // upkeep's to do after the sync.
      if (pendingRows.length > 0 && !this.upkeep) await this.maintain(Number.POSITIVE_INFINITY).catch(() => null);
      pendingRows = [];
    };
    opts.onProgress?.({ done, total: missing.length });
    try {
      for (let i = 0; i < missing.length; i += SYNC_BATCH) {
        if (opts.signal?.aborted) break;
        const rows = await side.feed(missing.slice(i, i + SYNC_BATCH));
        // The heading path says what the passage is about; it is embedded with it.
        this.passages ??= await this.embedder.passages();
        await searchesQuiet();
        const vectors = await this.passages.embed(
          rows.map((r) => (r.heading ? `${r.heading}\n${r.text}` : r.text)),
          'passage',
        );
        pendingRows.push(
          ...rows.map((r, j) => ({
            chunk_id: r.id,
            doc_id: r.doc_id,
            vector: vectors[j]!,
            type: r.type,
            lang: r.lang,
            tags: r.tags,
            path: r.path,
          })),
        );
        if (pendingRows.length >= WRITE_BATCH) await flush();
        opts.onProgress?.({ done: done + pendingRows.length, total: missing.length });
      }
    } catch (e) {
      // A model server gone mid-way: what was embedded is kept, and the next run resumes from it.
      await flush().catch(() => undefined);
      throw e;
    }
    await flush(); // also after an abort: what was embedded is kept
    if (!opts.signal?.aborted) await side.markSynced(this.slot, this.store.name, generation);
    return { embedded: done, deleted: stale.length };
  }

  /** Keeps vector search fast as the table grows (the table's own upkeep: its approximate index). */
  maintain(annMinRows: number): Promise<'indexed' | 'optimized' | null> {
    const run = this.store.maintain(annMinRows);
    this.upkeep = run;
    const done = (): void => {
      if (this.upkeep === run) this.upkeep = null;
    };
    run.then(done, done);
    return run;
  }

  /** Copies documents' current tags onto their vectors. */
  async retag(docIds: string[]): Promise<void> {
    for (const id of docIds) await this.store.setTags(id, await this.side.tagsOf(id));
  }

  /**
   * A query's vector. The last few are kept: the app asks again for the same text once typing pauses
   * (to rerank), and a backspace returns to a query just embedded.
   */
  async embedQuery(query: string): Promise<Float32Array | undefined> {
    const known = this.recent.get(query);
    if (known) {
      this.recent.delete(query); // most recent last
      this.recent.set(query, known);
      return known;
    }
    this.inflight++;
    try {
      const [q] = await this.embedder.embed([query], 'query');
      if (q) {
        this.recent.set(query, q);
        if (this.recent.size > RECENT_QUERIES) this.recent.delete(this.recent.keys().next().value!);
      }
      return q;
    } finally {
      this.inflight--;
      if (this.closeRequested && this.inflight === 0) void this.embedder.close();
    }
  }

  /** The nearest chunks to a vector (LanceDB searches on its own threads; PostgreSQL on its server). */
  nearest(vector: Float32Array, k: number, filter: VectorFilter): Promise<VectorHit[]> {
    return this.store.search(vector, k, filter);
  }

  /** Stops the embedding thread (it starts again on the next sync). */
  async closePassageThread(): Promise<void> {
    const t = this.passages;
    this.passages = undefined;
    await t?.close();
  }

  /** Releases the model once searches already running on it have answered. */
  async close(): Promise<void> {
    this.closeRequested = true;
    await this.passages?.close();
    if (this.inflight === 0) await this.embedder.close();
  }
}

export function mismatch(live: Binding, spec: EmbeddingSpec): string {
  if (live.model === spec.id) {
    return `the index's vectors were made with ${spec.id} as it was set up before (other weights, prefixes or dimension) — run: kb reindex, to embed everything again`;
  }
  return (
    `the index's vectors were made with ${live.model}, but the config asks for ${spec.id} — ` +
    `run: kb reindex (to embed everything with ${spec.id}), or set embedding.model back to ${live.model}`
  );
}
