// How good kb's top 10 is against every match scored (bench/vocabularies.ts): per query, the share of
// the hits kb shows whose score reaches the 10th best of the same ranking run over every chunk a word
// of the query matches (LexicalSearcher's exhaustive search: no candidate cut, no kept tops). Scores
// and not rowids are compared: a library of made-up words holds many chunks tied at a score, and any
// of them is as right as another. 1.0 is an exact top 10.
import { join } from 'node:path';
import { defaultConfig } from '../src/shared/config.js';
import { Candidates } from '../src/worker/search/candidates.js';
import { LexicalSearcher } from '../src/worker/search/lexical.js';
import { parseQuery } from '../src/worker/search/query.js';
import { openDb } from '../src/worker/store/open-db.js';
import { type BenchQuery, kbQuery, type QueryClass } from './vocab-queries.js';

/** Scores this close are a tie (they are rounded for the wire). */
const TIE = 1e-6;

/** Mean share per class over the first `perClass` queries of each. */
export async function exactness(data: string, qs: BenchQuery[], perClass: number): Promise<Map<QueryClass, number>> {
  const db = openDb(join(data, 'kb.sqlite'));
  try {
    const config = defaultConfig();
    const searcher = new LexicalSearcher(new Candidates(db, config), config);
    const shares = new Map<QueryClass, number[]>();
    for (const q of qs) {
      const got = shares.get(q.cls) ?? [];
      if (got.length >= perClass) continue;
      const parsed = (): ReturnType<typeof parseQuery> => parseQuery(kbQuery(q), { prefix: q.prefix });
      const cut = await searcher.search(parsed(), { tags: [] }, 10);
      const whole = await searcher.search(parsed(), { tags: [] }, 10, true);
      const floor = whole.hits[whole.hits.length - 1]?.score;
      got.push(floor === undefined ? 1 : cut.hits.filter((h) => h.score >= floor - TIE).length / whole.hits.length);
      shares.set(q.cls, got);
    }
    return new Map([...shares].map(([cls, xs]) => [cls, xs.reduce((a, b) => a + b, 0) / xs.length]));
  } finally {
    db.close();
  }
}
