// The Library a page at a time (documents.page): which documents are failed or waiting is decided by
// doc-state.ts over the few rows that may be (documents.unsettled); the store sorts, filters and
// counts the rest in SQLite.
import { SCHEMA_VERSION, type DocumentPage, type DocumentPageParams } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { docState } from '../store/doc-state.js';
import { documentSummary } from './inspect.js';

export function libraryPage(core: Core, p: DocumentPageParams): DocumentPage {
  const { repo } = core;
  const failed: string[] = [];
  const waiting: string[] = [];
  for (const d of repo.documents.unsettled()) {
    const s = docState(d).status;
    if (s === 'failed') failed.push(d.id);
    else if (s === 'waiting') waiting.push(d.id);
  }
  const text = p.filter?.trim() ?? '';
  const { rows, total } = repo.library.page({
    sort: p.sort ?? 'title',
    down: p.down === true,
    text: text.length > 0 ? text : null,
    only: p.status ?? null,
    failed,
    waiting,
    limit: p.limit,
    offset: p.offset ?? 0,
  });
  return {
    schema_version: SCHEMA_VERSION,
    documents: rows.map((d) => documentSummary(core, d)),
    total,
    counts: { all: repo.documents.count(), failed: failed.length, waiting: waiting.length },
  };
}
