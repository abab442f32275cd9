// `kb reindex`: embeds every chunk with a model into a new table beside the live one, then switches
// the live binding to it in one transaction of the store. Searches keep reading the old table until the
// switch. An interrupted reindex leaves its table as the pending binding; the next run resumes it.
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import type { ReindexResult } from '../../shared/wire.js';
import { openEmbedder, resolveEmbedding } from '../embed/resolve.js';
import type { VectorSidePort, VectorTables } from '../store/vector-port.js';
import { type EmbeddingChoice, fingerprintOf, Semantic, type SyncProgress } from './semantic.js';
import { tableName } from './table-name.js';

export type ReindexOutcome = Omit<ReindexResult, 'schema_version' | 'config_updated'>;

export async function reindex(
  dataDir: string,
  side: VectorSidePort,
  tables: VectorTables,
  choice: EmbeddingChoice,
  opts: { onProgress?: (p: SyncProgress) => void; signal?: AbortSignal; annMinRows: number },
): Promise<{ result: ReindexOutcome; semantic: Semantic | null }> {
  const started = performance.now();
  const resolved = resolveEmbedding(join(dataDir, 'models'), choice.ref, choice.overrides);
  if ('unavailable' in resolved) throw new KbError(resolved.code ?? 'MODEL_MISSING', resolved.unavailable);
  // A broken model, or an Ollama that is not running, fails here, before anything changes.
  const embedder = await openEmbedder(resolved, choice.ollamaHost);
  const spec = embedder.spec;
  const fingerprint = fingerprintOf(spec);

  let pending = await side.binding('pending');
  if (pending && pending.fingerprint !== fingerprint) {
    await tables.drop(pending.table); // an abandoned reindex to another model
    pending = null;
  }
  if (!pending) {
    pending = { model: spec.id, fingerprint, table: `${tableName(fingerprint)}_${Date.now().toString(36)}` };
    await side.setBinding('pending', pending);
  }
  const store = await tables.open(pending.table);
  const resumed = await store.count();
  const building = new Semantic(side, spec, embedder, store, 'pending');
  const { embedded } = await building
    .sync(opts)
    .catch(async (e: unknown) => {
      await embedder.close(); // what was embedded stays in the pending table; the next reindex resumes it
      throw e;
    })
    .finally(() => building.closePassageThread());
  const previous = await side.binding();
  const result = (cancelled: boolean): ReindexOutcome => ({
    model: spec.id,
    previous: previous?.model ?? null,
    embedded,
    resumed,
    cancelled,
    took_ms: Math.round(performance.now() - started),
  });
  if (opts.signal?.aborted) {
    await building.close();
    return { result: result(true), semantic: null };
  }

  await building.maintain(opts.annMinRows); // the new table goes live with its index, not before it
  const built = (await side.binding('pending')) ?? pending; // now with the generation it was synced at
  await side.promote(built);
  // Other processes notice the new live table on their next search and reopen.
  if (previous && previous.table !== pending.table) await tables.drop(previous.table);
  return { result: result(false), semantic: new Semantic(side, spec, embedder, store, 'live') };
}
