// Removing documents: by id, by path, or everything under a folder. The rows go in one transaction,
// then the vectors of what was removed, so a search never finds a removed document by meaning.
import { resolve, sep } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type RemoveResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { DocRow } from '../store/repo.js';
import type { VectorService } from '../vectors/service.js';
import { inTransaction } from '../store/tx.js';

export async function removeDocuments(core: Core, vectors: VectorService, idOrPath: string): Promise<RemoveResult> {
  core.assertWritable('remove documents from it');
  const { repo } = core;
  let docs: DocRow[];
  const byId = repo.documents.byId(idOrPath);
  if (byId) docs = [byId];
  else {
    const abs = resolve(idOrPath);
    const exact = repo.documents.byPath(abs);
    docs = exact ? [exact] : repo.documents.list().filter((d) => d.path.startsWith(abs.endsWith(sep) ? abs : abs + sep));
  }
  if (docs.length === 0) throw new KbError('NOT_FOUND', `nothing indexed at ${idOrPath}`);
  inTransaction(core.db, () => {
    for (const d of docs) repo.documents.delete(d.id);
  });
  core.wordsChanged();
  await vectors.sync();
  return { schema_version: SCHEMA_VERSION, removed: docs.map((d) => ({ doc_id: d.id, path: d.path })) };
}
