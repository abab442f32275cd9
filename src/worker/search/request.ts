// The first stage of a search: the checked request as the retrievers take it — the query parsed
// (words, phrases, prefix, raw FTS5) and the filters with their tags folded to lower case.
import type { ResolvedSearchParams } from '../../shared/wire.js';
import type { Filters } from '../store/doc-filter.js';
import { type ParsedQuery, parseQuery } from './query.js';

export interface SearchRequest {
  q: ParsedQuery;
  filters: Filters;
}

export function searchRequest(p: ResolvedSearchParams): SearchRequest {
  return {
    q: parseQuery(p.query, { prefix: p.prefix }),
    filters: { tags: p.tags.map((t) => t.toLowerCase()), type: p.type, path: p.path, lang: p.lang },
  };
}
