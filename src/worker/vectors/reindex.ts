// `kb reindex`: embeds every chunk with a model into a new table beside the live one, then switches
// the live binding to it in one SQLite transaction. Searches keep reading the old table until the
// switch. An interrupted reindex leaves its table as the pending binding; the next run resumes it.
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import type { ReindexResult } from '../../shared/wire.js';
import { Embedder } from '../embed/embedder.js';
import { ModelStore } from '../embed/models.js';
import { MODELS, modelSpec } from '../embed/registry.js';
import type { Db } from '../store/db.js';
import { readBinding, writeBinding } from './binding.js';
import { fingerprintOf, Semantic, type SyncProgress } from './semantic.js';
import { dropVectorTable, tableName, VectorStore } from './store.js';
import { inTransaction } from '../store/tx.js';

export type ReindexOutcome = Omit<ReindexResult, 'schema_version' | 'config_updated'>;

export async function reindex(
  dataDir: string,
  db: Db,
  modelId: string,
  opts: { onProgress?: (p: SyncProgress) => void; signal?: AbortSignal; annMinRows: number },
): Promise<{ result: ReindexOutcome; semantic: Semantic | null }> {
  const started = performance.now();
  const spec = modelSpec(modelId);
  if (!spec) throw new KbError('INVALID_ARGUMENT', `unknown model ${modelId}; kb knows: ${MODELS.map((m) => m.id).join(', ')}`);
  const models = new ModelStore(join(dataDir, 'models'));
  if (!models.isInstalled(spec.id)) throw new KbError('MODEL_MISSING', `${spec.id} is not installed — run: kb models pull ${spec.id}`);
  const embedder = await Embedder.load(models.pathOf(spec.id), spec); // a broken model fails here, before anything changes
  const vectorsDir = join(dataDir, 'vectors');
  const fingerprint = fingerprintOf(spec);

  let pending = readBinding(db, 'pending');
  if (pending && pending.fingerprint !== fingerprint) {
    await dropVectorTable(vectorsDir, pending.table); // an abandoned reindex to another model
    pending = null;
  }
  if (!pending) {
    pending = { model: spec.id, fingerprint, table: `${tableName(fingerprint)}_${Date.now().toString(36)}` };
    writeBinding(db, 'pending', pending);
  }
  const store = await VectorStore.open(vectorsDir, pending.table);
  const resumed = await store.count();
  const building = new Semantic(db, spec, embedder, store, 'pending');
  const { embedded } = await building.sync(opts).finally(() => building.closePassageThread());
  const previous = readBinding(db);
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
  const built = readBinding(db, 'pending') ?? pending; // now with the generation it was synced at
  inTransaction(db, () => {
    writeBinding(db, 'live', built);
    writeBinding(db, 'pending', null);
  });
  // Other processes notice the new live table on their next search and reopen.
  if (previous && previous.table !== pending.table) await dropVectorTable(vectorsDir, previous.table);
  return { result: result(false), semantic: new Semantic(db, spec, embedder, store, 'live') };
}
