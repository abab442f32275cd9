// Removing documents: by id, by path, or everything under a folder. The rows go in one transaction,
// then the vectors of what was removed, so a search never finds a removed document by meaning.
import { resolve, sep } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type RemoveResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { VectorService } from '../vectors/service.js';

export async function removeDocuments(core: Core, vectors: VectorService, idOrPath: string): Promise<RemoveResult> {
  core.assertWritable('remove documents from it');
  const t = core.store.tables;
  let docs: { id: string; path: string }[];
  const byId = await t.documents.byId(idOrPath);
  if (byId) docs = [byId];
  else {
    const abs = resolve(idOrPath);
    const exact = await t.documents.byPath(abs);
    docs = exact ? [exact] : await t.documents.under(abs.endsWith(sep) ? abs : abs + sep);
  }
  if (docs.length === 0) throw new KbError('NOT_FOUND', `nothing indexed at ${idOrPath}`);
  await core.store.write(async (w) => {
    for (const d of docs) await w.documents.delete(d.id);
  });
  core.wordsChanged();
  await vectors.sync();
  return { schema_version: SCHEMA_VERSION, removed: docs.map((d) => ({ doc_id: d.id, path: d.path })) };
}
