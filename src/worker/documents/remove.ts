// Removing documents: by id, by path, everything under a folder, or a list of ids (a forgotten collection's own). The rows go in one transaction,
// then the vectors of what was removed, so a search never finds a removed document by meaning.
import { resolve, sep } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type RemoveResult } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { asEngine } from '../acting.js';
import { dropUploadCopy } from '../uploads.js';
import type { VectorService } from '../vectors/service.js';

export async function removeDocuments(
  core: Core,
  vectors: VectorService,
  idOrPath: string | { ids: string[] },
  /**
   * Refuses paths the caller may not change (a team's user: outside the collections they edit). A
   * document they may only read stays under the database's policies anyway: without this, its
   * removal did nothing and was reported done.
   */
  mayChange: (paths: string[]) => Promise<void> = async () => undefined,
): Promise<RemoveResult> {
  core.assertWritable('remove documents from it');
  const t = core.store.tables;
  let docs: { id: string; path: string }[];
  const byId = typeof idOrPath === 'string' ? await t.documents.byId(idOrPath) : undefined;
  if (typeof idOrPath !== 'string') {
    docs = [];
    for (const id of idOrPath.ids) {
      const d = await t.documents.byId(id);
      if (d) docs.push(d);
    }
    if (docs.length === 0) return { schema_version: SCHEMA_VERSION, removed: [] };
  } else if (byId) docs = [byId];
  else {
    const abs = resolve(idOrPath);
    const exact = await t.documents.byPath(abs);
    docs = exact ? [exact] : await t.documents.under(abs.endsWith(sep) ? abs : abs + sep);
  }
  if (docs.length === 0) throw new KbError('NOT_FOUND', `nothing indexed at ${idOrPath}`);
  await mayChange(docs.map((d) => d.path));
  const blobs = new Set<string>();
  for (const d of docs) {
    const blob = (await t.originals.of(d.id))?.blob;
    if (blob) blobs.add(blob);
  }
  await core.store.write(async (w) => {
    for (const d of docs) await w.documents.delete(d.id);
  });
  core.wordsChanged();
  // The space comes back now, not at the next kb gc: copies no document keeps any more, and dropped
  // files' copies in uploads/ (kb's own).
  if (!core.readOnly) {
    // Asked as the engine: on a team server another collection's document, which this user cannot
    // see, may keep the same bytes.
    await asEngine(async () => {
      for (const b of blobs) if (!(await t.originals.keeps(b))) await core.blobs.drop(b);
    });
    for (const d of docs) await dropUploadCopy(d.path, core.dataDir);
  }
  await vectors.sync();
  return { schema_version: SCHEMA_VERSION, removed: docs.map((d) => ({ doc_id: d.id, path: d.path })) };
}
