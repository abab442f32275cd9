// What kb's candidate stage costs: the same search with its cut (common words deferred, FTS5's top
// 2×N, a heavy word's kept tops) and with none (every chunk a word of the query matches, scored by
// kb's whole ranking). Shared by the ranking bench (Cranfield, CACM) and the scale bench (1M).
import { join } from 'node:path';
import { defaultConfig } from '../src/shared/config.js';
import { openDb } from '../src/worker/store/open-db.js';
import { Candidates } from '../src/worker/search/candidates.js';
import { LexicalSearcher } from '../src/worker/search/lexical.js';
import { parseQuery } from '../src/worker/search/query.js';

export interface CutRuns {
  /** Per query, the documents ranked with the cut and without, first hit of each, up to `docs`. */
  cut: string[][];
  whole: string[][];
  /** Mean share of the uncut top `docs` documents the cut's top `docs` holds. */
  overlap: number;
  /** Milliseconds per query, with the cut and without. */
  cutMs: number;
  wholeMs: number;
}

export async function candidateCut(dataDir: string, queries: string[], docs = 100, hits = 150): Promise<CutRuns> {
  const db = openDb(join(dataDir, 'kb.sqlite'));
  try {
    const config = defaultConfig();
    const searcher = new LexicalSearcher(new Candidates(db, config), config);
    const pathOf = db.prepare<[number], { path: string }>(
      'SELECT d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid = ?',
    );
    const rank = async (q: string, exhaustive: boolean): Promise<string[]> => {
      const r = await searcher.search(parseQuery(q, { prefix: false }), { tags: [] }, hits, exhaustive);
      return [...new Set(r.hits.map((h) => pathOf.get(h.rowid)!.path))].slice(0, docs);
    };
    const cut: string[][] = [];
    const whole: string[][] = [];
    let cutMs = 0;
    let wholeMs = 0;
    const shares: number[] = [];
    for (const q of queries) {
      let t = performance.now();
      const c = await rank(q, false);
      cutMs += performance.now() - t;
      t = performance.now();
      const w = await rank(q, true);
      wholeMs += performance.now() - t;
      cut.push(c);
      whole.push(w);
      const inCut = new Set(c);
      if (w.length > 0) shares.push(w.filter((d) => inCut.has(d)).length / w.length);
    }
    const overlap = shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : 1;
    return { cut, whole, overlap, cutMs: cutMs / queries.length, wholeMs: wholeMs / queries.length };
  } finally {
    db.close();
  }
}
