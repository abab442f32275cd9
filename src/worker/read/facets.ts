// What a search can be narrowed to: the types of the indexed documents and their tags with how many
// documents carry each — two grouped queries (listing every document, as kb ls does, took 380 ms on
// 13,000) — and, apart, how many documents there are and how many failed.
import { DOC_TYPES, type DocType } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { docState } from '../store/doc-state.js';

export interface Facets {
  /** In the document-type table's order. */
  types: DocType[];
  /** The most used first. */
  tags: { name: string; documents: number }[];
}

export async function indexFacets(core: Core): Promise<Facets> {
  const present = await core.store.tables.documents.indexedTypes();
  return { types: DOC_TYPES.filter((t) => present.has(t)), tags: await core.store.tables.tags.counts() };
}

/** Documents searchable or waiting, and those that failed — as every view says it (doc-state.ts), so the footer's count is the Library's. */
export async function documentCounts(core: Core): Promise<{ documents: number; failed: number }> {
  // Only the rows that may be failed are read, and doc-state decides.
  const failed = (await core.store.tables.documents.unsettled()).filter((d) => docState(d).status === 'failed').length;
  return { documents: (await core.store.tables.documents.count()) - failed, failed };
}

/** Whether any document is indexed. */
export function anyIndexed(core: Core): Promise<boolean> {
  return core.store.tables.documents.anyIndexed();
}
