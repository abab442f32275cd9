// A search as the engine answers it: hybrid when the vector half is there, by words alone (saying
// why) when it is not or when it fails, so a broken vector store never leaves a search unanswered.
import type { SearchParams, SearchResult } from '../../shared/wire.js';
import { firstLine, KbError } from '../../shared/errors.js';
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import type { VectorService } from '../vectors/service.js';

export async function searchIndex(core: Core, vectors: VectorService, params: SearchParams): Promise<SearchResult> {
  const r = await answer(core, vectors, params);
  // The query is the user's text: debug only.
  core.log.debug({ query: params.query, mode: r.mode, hits: r.results.length, took_ms: r.took_ms }, 'search');
  return r;
}

async function answer(core: Core, vectors: VectorService, params: SearchParams): Promise<SearchResult> {
  const p = { top: core.config.search.top, ...params };
  const { searcher } = core;
  if (p.mode === 'lexical') return searcher.search(p);
  try {
    const r = await vectors.with((sem) => searcher.searchWith(p, sem));
    return 'unavailable' in r ? searcher.search(p, r.unavailable) : r;
  } catch (e) {
    if (e instanceof KbError) throw e;
    core.log.warn(errorFields(e), 'the vector store failed: searching by words only');
    return searcher.search(p, `the vector store failed (${firstLine(e)}); searching by words only`);
  }
}
