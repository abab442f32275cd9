// kb doctor --fix for passages that no longer read back (store/integrity.ts finds them): each such
// document is read again from its file — the one on disk, a dropped file's copy in uploads/ — which
// replaces its passages whole. A document whose file is gone keeps its row, its tags and its stored
// copy, loses the passages nobody can read, and says why (it is then *failed* in kb ls and the
// Library, with what to do). Nothing else in the index is touched.
import { stat } from 'node:fs/promises';
import type { IngestSummary } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { Db } from '../store/db.js';
import { unreadablePassages } from '../store/integrity.js';

export interface PassageRepair {
  /** Passages that did not read back, and in how many documents. */
  passages: number;
  documents: number;
  /** Documents read again from their files. */
  reread: number;
  /** Documents whose file is gone or would not read: their unreadable passages were taken out. */
  lost: string[];
}

export async function repairPassages(
  core: Core,
  db: Db,
  reread: (paths: string[]) => Promise<IngestSummary>,
): Promise<PassageRepair | null> {
  const damaged = unreadablePassages(db);
  if (damaged.size === 0) return null;
  const docs = core.store.tables.documents;
  const paths: string[] = [];
  for (const id of damaged.keys()) {
    const d = await docs.byId(id);
    if (
      d &&
      (await stat(d.path).then(
        (s) => s.isFile(),
        () => false,
      ))
    )
      paths.push(d.path);
  }
  if (paths.length > 0) await reread(paths);
  // What reading again did not mend (a file gone, changed into something kb cannot read).
  const left = unreadablePassages(db);
  const lost: string[] = [];
  for (const id of left.keys()) {
    const d = await docs.byId(id);
    if (!d) continue;
    await core.store.write(async (t) => {
      await t.chunks.replace(id, []);
      await t.documents.setError(
        id,
        `DB_CORRUPT: its passages could not be read back, and its file could not be read again (${d.path}): add it again`,
      );
    });
    lost.push(d.path);
  }
  core.wordsChanged();
  return {
    passages: [...damaged.values()].reduce((a, b) => a + b, 0),
    documents: damaged.size,
    reread: damaged.size - left.size,
    lost,
  };
}
