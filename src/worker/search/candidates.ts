// Candidate generation on the FTS5 word index: the MATCH expression with the filters folded in,
// FTS5's weighted bm25 to order candidates, counts of all matches, and chunk texts fetched in one
// query. The statements are the store's (store/word-index.ts); this is what the search asks of them.
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Db } from '../store/db.js';
import { type Filters, filterFts, pathMatcher } from '../store/doc-filter.js';
import { Tags } from '../store/tags.js';
import { type Candidate, type ChunkText, WordIndex } from '../store/word-index.js';
import { IndexStats } from './index-stats.js';
import { type FromTops, TopsReader } from './tops-reader.js';

export type { Candidate, ChunkText };

export class Candidates {
  readonly index: WordIndex;
  private readonly tags: Tags;
  /** Cleared with the index statistics (see LexicalSearcher). */
  readonly pathCache = new Map<string, string[]>();
  readonly stats: IndexStats;
  private readonly tops: TopsReader;

  constructor(
    readonly db: Db,
    private readonly config: Config,
  ) {
    this.index = new WordIndex(db);
    this.tags = new Tags(db);
    this.stats = new IndexStats(this.index, config);
    this.tops = new TopsReader(db);
  }

  /** Ids of the indexed documents whose path matches a glob, cached until the next write. */
  pathDocIds = (glob: string): string[] => {
    let ids = this.pathCache.get(glob);
    if (!ids) {
      const m = pathMatcher(glob);
      ids = this.index
        .indexedPaths()
        .filter((r) => m(r.path))
        .map((r) => r.id);
      this.pathCache.set(glob, ids);
    }
    return ids;
  };

  /** Title, heading and text of many chunks in one query, in the order asked. */
  texts(rowids: number[]): ChunkText[] {
    return this.index.texts(rowids);
  }

  private weights(): [number, number, number] {
    const w = this.config.search.weights;
    return [w.title, w.heading, w.body];
  }

  /** The MATCH expression with the type/lang/tag filters folded in; null when no chunk can match. */
  private withFilters(expr: string, filters: Filters): string | null {
    const ff = filterFts((t) => this.tags.id(t), filters);
    if (ff.impossible) return null;
    return ff.clause ? `(${expr}) AND ${ff.clause}` : expr;
  }

  private docIds(filters: Filters): string[] | null {
    return filters.path ? this.pathDocIds(filters.path) : null;
  }

  fetch(expr: string, filters: Filters, limit: number): Candidate[] {
    const match = this.withFilters(expr, filters);
    if (match === null) return [];
    try {
      return this.index.candidates(match, this.weights(), this.docIds(filters), limit);
    } catch (e) {
      throw new KbError('QUERY_INVALID', `the search expression is not valid: ${(e as Error).message.replace(/^fts5: /, '')}`);
    }
  }

  /** A one-unit search's best `depth` chunks from the unit's tops (tops.ts); null: ask FTS5. */
  fromTops(unit: string, filters: Filters, depth: number): FromTops | null {
    const { n: _n, ...model } = this.stats.fieldModel();
    return this.tops.best(unit, model, filters, depth);
  }

  count(expr: string, filters: Filters): number {
    const match = this.withFilters(expr, filters);
    if (match === null) return 0;
    return this.index.count(match, this.docIds(filters));
  }

  /** The share of chunks that pass the filters (the most selective one), for estimates. */
  filterShare(filters: Filters): number {
    const n = this.stats.n();
    let share = 1;
    const tokens = filterFts((t) => this.tags.id(t), filters).clause?.match(/kb\w+/g) ?? [];
    for (const [, f] of this.stats.docFreq(tokens)) share = Math.min(share, f / n);
    if (tokens.length > 0 && this.stats.docFreq(tokens).size < tokens.length) share = 0;
    if (filters.path) {
      const docs = this.index.indexedCount();
      share = Math.min(share, docs > 0 ? this.pathDocIds(filters.path).length / docs : 0);
    }
    return share;
  }
}
