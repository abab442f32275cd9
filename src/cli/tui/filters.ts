// What Tab cycles through in kb tui: everything, then each type of document the index holds, then
// each tag (the most used first) — only filters that can find something.
import { DOC_TYPES, type DocType, type SearchParams } from '../../shared/wire.js';

export interface Filter {
  type?: DocType;
  tag?: string;
}

/** Before the index says what it holds: every type, no tags. */
export const EVERY_TYPE: Filter[] = [{}, ...DOC_TYPES.map((type) => ({ type }))];

/** Everything, each type there is, then each tag (the engine's facets: the most used tag first). */
export function filtersOf(facets: { types: DocType[]; tags: { name: string }[] }): Filter[] {
  return [{}, ...facets.types.map((type) => ({ type })), ...facets.tags.map((t) => ({ tag: t.name }))];
}

export function filterParams(f: Filter): Pick<SearchParams, 'type' | 'tags'> {
  return { ...(f.type ? { type: f.type } : {}), ...(f.tag ? { tags: [f.tag] } : {}) };
}

export function filterLabel(f: Filter): string | null {
  return f.type ? `type: ${f.type}` : f.tag ? `tag: #${f.tag}` : null;
}
