// The SQLite store's word source (word-source.ts) on its FTS5 index: a match written as an FTS5
// expression with the filters folded in, FTS5's weighted bm25 to order candidates, counts of all
// matches, chunk texts fetched in one query, the heavy units' kept tops. The statements are the
// store's (store/word-index.ts); this is what the search asks of them.
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Db } from '../store/db.js';
import { type Filters, filterFts, pathMatcher } from '../store/doc-filter.js';
import { globResults } from '../store/path-glob.js';
import { filterInTurns } from '../turns.js';
import { Tags } from '../store/tags.js';
import type { TopsPort } from '../store/port.js';
import { WordIndex } from '../store/word-index.js';
import { WordTopsTable } from '../store/word-tops.js';
import { IndexStats } from './index-stats.js';
import { ftsString } from './query.js';
import { TopsReader } from './tops-reader.js';
import { prefixUnit } from './tops.js';
import type { Candidate, ChunkText, FromTops, Match, WordSource } from './word-source.js';

/** A match as an FTS5 expression: words as typed (FTS5's porter tokenizer stems them), phrases quoted. */
export function ftsOf(m: Match): string {
  if ('raw' in m) return m.raw;
  if ('and' in m) return m.and.map((p) => `(${ftsOf(p)})`).join(' AND ');
  if ('or' in m) return m.or.map((p) => `(${ftsOf(p)})`).join(' OR ');
  const parts = m.words.map((t) => (t.prefix ? `${ftsString(t.text)}*` : ftsString(t.text)));
  for (const p of m.phrases) parts.push(ftsString(p.join(' ')));
  return parts.join(` ${m.join} `);
}

export class Candidates implements WordSource {
  readonly index: WordIndex;
  private readonly tags: Tags;
  /** Cleared with the index statistics. */
  private readonly pathCache = globResults();
  readonly stats: IndexStats;
  /** FTS5 is the measure (word-source.ts). */
  readonly scoringCost = 1;
  readonly countsEveryForm = false;
  private readonly tops: TopsReader;

  constructor(
    readonly db: Db,
    private readonly config: Config,
    tops: TopsPort = new WordTopsTable(db),
  ) {
    this.index = new WordIndex(db);
    this.tags = new Tags(db);
    this.stats = new IndexStats(this.index, config);
    this.tops = new TopsReader(tops);
  }

  async refresh(): Promise<boolean> {
    this.tops.newSearch();
    const changed = this.stats.refresh();
    if (changed) this.pathCache.clear();
    return changed;
  }

  invalidate(): void {
    this.stats.invalidate();
    this.pathCache.clear();
    this.tops.newSearch();
  }

  /** Ids of the indexed documents whose path matches a glob, cached until the next write. */
  private async docsOfGlob(glob: string): Promise<string[]> {
    let ids = this.pathCache.get(glob);
    if (!ids) {
      const m = pathMatcher(glob);
      ids = (await filterInTurns(this.index.indexedPaths(), (r) => m(r.path))).map((r) => r.id);
      this.pathCache.set(glob, ids);
    }
    return ids;
  }

  async pathDocIds(glob: string): Promise<string[]> {
    return this.docsOfGlob(glob);
  }

  async texts(rowids: number[]): Promise<ChunkText[]> {
    return this.index.texts(rowids);
  }

  show(m: Match): string {
    return ftsOf(m);
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

  /** The documents a path glob leaves; null when nothing filters by path, or the glob leaves every document. */
  private async docIds(filters: Filters): Promise<string[] | null> {
    if (!filters.path) return null;
    const ids = await this.docsOfGlob(filters.path);
    return ids.length > 0 && ids.length === this.index.indexedCount() ? null : ids;
  }

  async fetch(m: Match, filters: Filters, limit: number): Promise<Candidate[]> {
    const match = this.withFilters(ftsOf(m), filters);
    if (match === null) return [];
    // The glob's own errors are its own (INVALID_ARGUMENT), not the expression's.
    const docIds = await this.docIds(filters);
    try {
      return this.index.candidates(match, this.weights(), docIds, limit);
    } catch (e) {
      const why = (e as Error).message.replace(/^fts5: /, '').replace(/^syntax error near ""$/, 'it ends where a word should follow');
      throw new KbError(
        'QUERY_INVALID',
        `the search expression between quotes is not valid FTS5 (${why}): finish it, or drop the quotes to search its words`,
      );
    }
  }

  readonly prefixesByStem = false;

  prefixUnitOf(letters: string): string {
    return prefixUnit(letters);
  }

  /** A one-unit search's best `depth` chunks from the unit's tops (tops.ts); null: ask FTS5. */
  async fromTops(unit: string, filters: Filters, depth: number): Promise<FromTops | null> {
    const { n: _n, ...model } = this.stats.fieldModel();
    return this.tops.best(unit, model, filters, depth);
  }

  async count(m: Match, filters: Filters): Promise<number> {
    const match = this.withFilters(ftsOf(m), filters);
    if (match === null) return 0;
    return this.index.count(match, await this.docIds(filters));
  }

  async substring(letters: string, filters: Filters): Promise<number[]> {
    return this.index.substring(letters, filters);
  }

  async filterShare(filters: Filters): Promise<number> {
    const n = this.stats.n();
    let share = 1;
    const tokens = filterFts((t) => this.tags.id(t), filters).clause?.match(/kb\w+/g) ?? [];
    const df = this.stats.docFreqNow(tokens);
    for (const [, f] of df) share = Math.min(share, f / n);
    if (tokens.length > 0 && df.size < tokens.length) share = 0;
    if (filters.path) {
      const docs = this.index.indexedCount();
      share = Math.min(share, docs > 0 ? (await this.docsOfGlob(filters.path)).length / docs : 0);
    }
    return share;
  }
}
