// The vector half of the engine: the installed embedding model and its LanceDB table, kept in step with
// SQLite's chunks. sync() embeds chunks that have no vector and deletes vectors whose chunk is gone, so
// it serves ingest (lexical chunks are committed first and searchable at once), removal, and recovery
// after a crash or a table deleted behind kb's back.
import { join } from 'node:path';
import type { Db } from '../store/db.js';
import { Embedder } from '../embed/embedder.js';
import { ModelStore } from '../embed/models.js';
import { modelSpec, type ModelSpec } from '../embed/registry.js';
import { CHUNKER_VERSION } from '../ingest/types.js';
import { type VectorFilter, type VectorHit, VectorStore } from './store.js';

/** Chunks embedded per round; between rounds the engine's message loop runs (searches answer). */
const SYNC_BATCH = 128;

export interface SyncProgress {
  done: number;
  total: number;
}

export function fingerprintOf(spec: ModelSpec): string {
  return JSON.stringify({
    model: spec.id,
    dimension: spec.dimension,
    pooling: spec.pooling,
    query: spec.queryPrefix,
    passage: spec.passagePrefix,
    chunker: CHUNKER_VERSION,
  });
}

export class Semantic {
  private constructor(
    private readonly db: Db,
    readonly embedder: Embedder,
    readonly store: VectorStore,
  ) {}

  /** The configured model if it is installed; otherwise the reason vectors are unavailable. */
  static async open(dataDir: string, db: Db, modelId: string): Promise<Semantic | { unavailable: string }> {
    const spec = modelSpec(modelId);
    if (!spec) return { unavailable: `unknown embedding model ${modelId} in the config` };
    const models = new ModelStore(join(dataDir, 'models'));
    if (!models.isInstalled(spec.id)) return { unavailable: `no embedding model installed — run: kb models pull ${spec.id}` };
    const embedder = await Embedder.load(models.pathOf(spec.id), spec);
    const store = await VectorStore.open(join(dataDir, 'vectors'), fingerprintOf(spec));
    return new Semantic(db, embedder, store);
  }

  /** Brings the vector table in line with SQLite's chunks. */
  async sync(opts: { onProgress?: (p: SyncProgress) => void; signal?: AbortSignal } = {}): Promise<{ embedded: number; deleted: number }> {
    const inDb = new Set((this.db.prepare('SELECT id FROM chunks').pluck().all() as string[]));
    const inStore = await this.store.ids();
    const stale = [...inStore].filter((id) => !inDb.has(id));
    await this.store.delete(stale);
    const missing = [...inDb].filter((id) => !inStore.has(id));
    const rowsOf = this.db.prepare(
      `SELECT c.id, c.doc_id, c.heading, c.text, d.type, coalesce(d.lang, '') AS lang, d.path,
         '|' || coalesce((SELECT group_concat(t.name, '|') FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = d.id), '') || '|' AS tags
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN (SELECT value FROM json_each(?))`,
    );
    let done = 0;
    for (let i = 0; i < missing.length; i += SYNC_BATCH) {
      if (opts.signal?.aborted) break;
      const rows = rowsOf.all(JSON.stringify(missing.slice(i, i + SYNC_BATCH))) as {
        id: string;
        doc_id: string;
        heading: string;
        text: string;
        type: string;
        lang: string;
        path: string;
        tags: string;
      }[];
      // The heading path says what the passage is about; it is embedded with it.
      const vectors = await this.embedder.embed(rows.map((r) => (r.heading ? `${r.heading}\n${r.text}` : r.text)), 'passage');
      await this.store.add(
        rows.map((r, j) => ({ chunk_id: r.id, doc_id: r.doc_id, vector: vectors[j]!, type: r.type, lang: r.lang, tags: r.tags, path: r.path })),
      );
      done += rows.length;
      opts.onProgress?.({ done, total: missing.length });
    }
    return { embedded: done, deleted: stale.length };
  }

  /** Copies documents' current tags onto their vectors. */
  async retag(docIds: string[]): Promise<void> {
    const tagsOf = this.db.prepare(
      `SELECT '|' || coalesce(group_concat(t.name, '|'), '') || '|' AS tags
       FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ?`,
    );
    for (const id of docIds) await this.store.setTags(id, (tagsOf.get(id) as { tags: string }).tags);
  }

  async search(query: string, k: number, filter: VectorFilter): Promise<VectorHit[]> {
    const [q] = await this.embedder.embed([query], 'query');
    return q ? this.store.search(q, k, filter) : [];
  }

  async close(): Promise<void> {
    await this.embedder.close();
  }
}
