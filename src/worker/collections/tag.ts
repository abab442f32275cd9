// A collection's tags belong to every document in it, including files indexed before the folder
// became a collection (kb add does not read those again). The caller owns the transaction.
import { normalizeTags } from '../ingest/tags.js';
import type { Repo } from '../store/repo.js';

/** Gives the documents the tags they lack; returns the ids of those that changed (word index refreshed). */
export function tagMissing(repo: Repo, docIds: string[], tags: string[]): string[] {
  const wanted = normalizeTags(tags);
  if (wanted.length === 0 || docIds.length === 0) return [];
  // Usually every document has them already (this runs on each reconcile): one query tells.
  const done = repo.tags.docsWithAll(wanted);
  const retagged: string[] = [];
  for (const id of docIds) {
    if (done.has(id) || repo.tags.add(id, wanted) === 0) continue;
    repo.chunks.refreshWords(id);
    retagged.push(id);
  }
  return retagged;
}
