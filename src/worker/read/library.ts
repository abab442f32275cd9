// The Library a page at a time (documents.page): which documents are failed or waiting is decided by
// doc-state.ts over the few rows that may be (documents.unsettled); the store sorts, filters and
// counts the rest in SQLite.
import { SCHEMA_VERSION, type DocumentPage, type DocumentPageParams } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { docState } from '../store/doc-state.js';
import { documentSummaries } from './inspect.js';

export async function libraryPage(core: Core, p: DocumentPageParams): Promise<DocumentPage> {
  const t = core.store.tables;
  const first = (p.offset ?? 0) === 0 && p.after === undefined;
  const sort = p.sort ?? 'title';
  // Which documents are failed or waiting: for the first page's counts, and for every page that
  // sorts or filters by status (kb ls, paging by path, needs it once).
  const failed: string[] = [];
  const waiting: string[] = [];
  if (first || sort === 'status' || p.status) {
    for (const d of await t.documents.unsettled()) {
      const s = docState(d).status;
      if (s === 'failed') failed.push(d.id);
      else if (s === 'waiting') waiting.push(d.id);
    }
  }
  const text = p.filter?.trim() ?? '';
  const { rows, total } = await t.library.page({
    sort,
    down: p.down === true,
    text: text.length > 0 ? text : null,
    only: p.status ?? null,
    failed,
    waiting,
    limit: p.limit,
    offset: p.offset ?? 0,
    after: p.after ?? null,
  });
  return {
    schema_version: SCHEMA_VERSION,
    documents: await documentSummaries(core, rows),
    total,
    ...(first ? { counts: { all: await t.documents.count(), failed: failed.length, waiting: waiting.length } } : {}),
  };
}
