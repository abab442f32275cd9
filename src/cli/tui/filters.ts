// What Tab cycles through in kb tui: everything, then each type of document the index holds, then
// each tag (the most used first) — only filters that can find something.
import { DOC_TYPES, type DocType, type DocumentSummary, type SearchParams } from '../../shared/wire.js';

export interface Filter {
  type?: DocType;
  tag?: string;
}

/** Before the index says what it holds: every type, no tags. */
export const EVERY_TYPE: Filter[] = [{}, ...DOC_TYPES.map((type) => ({ type }))];

export function filtersOf(docs: Pick<DocumentSummary, 'type' | 'tags' | 'status'>[]): Filter[] {
  const types = new Set<DocType>();
  const tags = new Map<string, number>();
  for (const d of docs) {
    if (d.status !== 'indexed') continue;
    types.add(d.type);
    for (const t of d.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
  }
  const byUse = [...tags].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([tag]) => ({ tag }));
  return [{}, ...DOC_TYPES.filter((t) => types.has(t)).map((type) => ({ type })), ...byUse];
}

export function filterParams(f: Filter): Pick<SearchParams, 'type' | 'tags'> {
  return { ...(f.type ? { type: f.type } : {}), ...(f.tag ? { tags: [f.tag] } : {}) };
}

export function filterLabel(f: Filter): string | null {
  return f.type ? `type: ${f.type}` : f.tag ? `tag: #${f.tag}` : null;
}
