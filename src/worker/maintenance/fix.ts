// kb doctor --fix: rebuilds what can be rebuilt from what survives. Passages that no longer read back
// are read again from their documents' files (repair-passages.ts) — first: rebuilding the word index
// reads every passage. The word indexes are rebuilt from the chunks; a vector table that is gone or unreadable is dropped and every chunk embedded again;
// vectors of chunks that no longer exist are deleted; originals nothing refers to are collected. The
// SQLite file itself cannot be rebuilt from anything: if it is damaged, fix says so and what to do.
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { plural } from '../../shared/words.js';
import { SCHEMA_VERSION, type DoctorReport, type IngestSummary, type ReindexProgress } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { quickCheck, rebuildWordIndexes, wordIndexesSound } from '../store/integrity.js';
import type { TopsUpkeep } from '../search/tops-upkeep.js';
import type { VectorService } from '../vectors/service.js';
import { collectGarbage } from './gc.js';
import { unreadUploads } from '../uploads.js';
import { repairPassages } from './repair-passages.js';
import { pendingUpgrade, upgradeIndex } from './upgrade.js';
import type { DoctorFixSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';
import { formatBytes } from '../../shared/bytes.js';

export type FixResult = z.infer<typeof DoctorFixSchema>;

export async function runFix(
  core: Core,
  vectors: VectorService,
  tops: TopsUpkeep,
  doctor: () => Promise<DoctorReport>,
  /** Reads these files again, even unchanged (a forced ingest). */
  reread: (paths: string[]) => Promise<IngestSummary>,
  opts: { onProgress?: (p: ReindexProgress) => void } = {},
): Promise<FixResult> {
  core.assertWritable('repair it');
  const actions: FixResult['actions'] = [];
  const db = core.sqlite;
  const quick = db ? quickCheck(db) : 'ok';
  if (quick !== 'ok') {
    throw new KbError(
      'DB_CORRUPT',
      `the index file is damaged (${quick}); kb cannot rebuild it from itself: move ${join(core.dataDir, 'kb.sqlite')} away and ingest your folders again (your files and the stored copies in blobs/ are untouched)`,
    );
  }
  const passages = db ? await repairPassages(core, db, reread) : null;
  if (passages) {
    const lost = passages.lost.length;
    actions.push({
      name: 'passages',
      detail: `${plural(passages.passages, 'passage')} of ${plural(passages.documents, 'document')} did not read back: ${passages.reread} read again from their files${lost > 0 ? `; ${lost} could not be (their files are gone or unreadable: ${passages.lost.slice(0, 5).join(', ')}${lost > 5 ? ', …' : ''}) and now say so in kb ls` : ''}`,
    });
  }
  if (db && !wordIndexesSound(db)) {
    rebuildWordIndexes(db);
    core.wordsChanged();
    actions.push({ name: 'full-text index', detail: 'rebuilt both word indexes from the chunks' });
  }
  const pending = pendingUpgrade(core);
  if (await upgradeIndex(core))
    actions.push({
      name: 'index upgrade',
      detail: `finished upgrading the index (from passage ${pending?.done ?? 0} of ${pending?.total ?? 0})`,
    });
  const v = await vectors.repair(opts.onProgress);
  if (v?.rebuilt)
    actions.push({
      name: 'vectors',
      detail: `the vector table was unreadable (${v.rebuilt}): rebuilt it, ${plural(v.embedded, 'chunk')} embedded`,
    });
  else if (v && v.embedded + v.deleted > 0) {
    actions.push({
      name: 'vectors',
      detail: `embedded ${plural(v.embedded, 'chunk')} that had none, deleted ${plural(v.deleted, 'vector')} of chunks that are gone`,
    });
  }
  const t = await tops.catchUp();
  if (t && (t.kind === 'built' || t.kind === 'updated'))
    actions.push({
      name: 'common words',
      detail: `${t.kind === 'built' ? 'ranked' : 'brought up to date'} the best passages of ${plural(t.units, 'word and prefix', 'words and prefixes')} in many passages (${plural(t.scanned, 'passage')} read)`,
    });
  // Before gc, which would delete them: the files of a drop that was cut short, read as it was asked.
  const dropped = await unreadUploads(core.dataDir, async (p) => (await core.store.tables.documents.byPath(p)) !== undefined, 0);
  if (dropped.length > 0) {
    const r = await reread(dropped);
    actions.push({
      name: 'dropped files',
      detail: `read ${plural(dropped.length, 'file')} a drop in the browser had left unread: ${r.added + r.updated} added${r.failed ? `, ${r.failed} failed (kb ls says why)` : ''}`,
    });
  }
  const gc = await collectGarbage(core, vectors);
  if (gc.removed_blobs + gc.removed_uploads > 0)
    actions.push({
      name: 'stored originals',
      detail: `removed ${gc.removed_blobs + gc.removed_uploads} copies nothing refers to (${formatBytes(gc.freed_bytes)})`,
    });
  if (gc.compacted_bytes > 0)
    actions.push({ name: 'index file', detail: `gave back ${formatBytes(gc.compacted_bytes)} of free pages to the disk` });
  if (gc.vector_bytes > 0) actions.push({ name: 'vector store', detail: `deleted ${formatBytes(gc.vector_bytes)} of replaced versions` });
  return { schema_version: SCHEMA_VERSION, actions, report: await doctor() };
}
