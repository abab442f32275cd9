// A collection's tags belong to every document in it, including files indexed before the folder
// became a collection (kb add does not read those again). The caller owns the transaction.
import { normalizeTags } from '../ingest/tags.js';
import type { Tables } from '../store/port.js';

/** Gives the documents the tags they lack; returns the ids of those that changed (word index refreshed). */
export async function tagMissing(t: Tables, docIds: string[], tags: string[]): Promise<string[]> {
  const wanted = normalizeTags(tags);
  if (wanted.length === 0 || docIds.length === 0) return [];
  // Usually every document has them already (this runs on each reconcile): one query tells.
  const done = await t.tags.docsWithAll(wanted);
  const retagged: string[] = [];
  for (const id of docIds) {
    if (done.has(id) || (await t.tags.add(id, wanted)) === 0) continue;
    await t.chunks.refreshWords(id);
    retagged.push(id);
  }
  return retagged;
}
