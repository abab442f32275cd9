// The PostgreSQL store's word source (word-source.ts): a match written as a tsquery of kb's stems,
// candidates ordered by kb's BM25F computed in SQL (store/postgres/word-index.ts), the statistics
// from the word_stats and chunk_totals the chunks' triggers keep, cached until their generation
// moves. A heavy word's or prefix's best chunks come from its kept tops (tops.ts), as on SQLite.
import { asEngine, currentActor, currentPathView } from '../acting.js';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Filters } from '../store/doc-filter.js';
import { globResults, pathPasses } from '../store/path-glob.js';
import { filterInTurns } from '../turns.js';
import type { PgWordIndex } from '../store/postgres/word-index.js';
import { tsquery } from '../store/postgres/tsquery.js';
import { indexForm } from '../words.js';
import type { TopsPort } from '../store/port.js';
import { TopsReader } from './tops-reader.js';
import { prefixUnit, wordUnit } from './tops.js';
import { pgMatch, rawTsquery, scoredForms } from './pg-match.js';
import { PgWordStats } from './pg-word-stats.js';
import type { Candidate, ChunkText, FromTops, Match, WordSource } from './word-source.js';

/** How far the substring path looks for one word (as on SQLite). */
const SUBSTRING_CAP = 5000;

/** How long the chunks' generation read for one search stands for the next (see currentGeneration). */
const GENERATION_KEPT_MS = 100;

/** Matches whose count a fetch found, kept until the chunks change. */
const COUNTS_KEPT = 256;

/** A team user's share of the passages is an estimate's factor: counted again at most this often. */
const SIGHT_KEPT_MS = 60_000;

/** A chunk costs a search a few µs a word (store/postgres/word-index.ts, ts_rank_cd); FTS5 under one. */
export const PG_SCORING_COST = 8;

export class PgWordSource implements WordSource {
  readonly scoringCost = PG_SCORING_COST;
  readonly countsEveryForm = true;
  private readonly index: PgWordIndex;
  readonly stats: PgWordStats;
  /** The documents each glob leaves, of every indexed one. */
  private readonly globs = globResults();
  /** Per team user: the share of the passages they may read (filterShare), and until when it stands. */
  private readonly sight = new Map<string, { share: number; until: number }>();
  private generation: { read: Promise<number>; until: number } | null = null;
  private sizes: { counted: Promise<Map<string, number>>; until: number } | null = null;
  /** For team users: the share of all documents each set of filters leaves, and until when it stands. */
  private readonly shares = new Map<string, { share: number; until: number }>();
  /**
   * Every indexed document's path, read once per generation of the chunks (as the engine, for
   * everyone: a path only narrows a search row-level security still answers).
   */
  private paths: Promise<{ id: string; path: string }[]> | null = null;

  private readonly tops: TopsReader;
  /** How many chunks a match found when it was last fetched, by user, match and filters (this generation). */
  private readonly counted = new Map<string, number>();

  private countKey(text: string, filters: Filters): string {
    return JSON.stringify([currentActor() ?? '', text, filters]);
  }

  private remember(key: string, n: number): void {
    if (this.counted.size >= COUNTS_KEPT) this.counted.delete(this.counted.keys().next().value!);
    this.counted.set(key, n);
  }

  constructor(index: PgWordIndex, config: Config, tops: TopsPort) {
    this.index = index;
    // A heavy word's readable best chunk (its tops, checked under the user's policies) answers whether
    // a team's user sees the word at all without asking the word index (pg-word-stats.ts occurs).
    this.stats = new PgWordStats(
      index,
      config,
      async (stem) => ((await this.fromTops(wordUnit(stem), { tags: [] }, 1))?.rowids.length ?? 0) > 0,
    );
    this.tops = new TopsReader(tops);
  }

  async refresh(): Promise<boolean> {
    this.tops.newSearch();
    const generation = await this.currentGeneration();
    if (generation === this.stats.totals.generation) return false;
    this.invalidate();
    this.stats.totals = await this.index.totals();
    return true;
  }

  /**
   * The chunks' generation, read at most once per GENERATION_KEPT_MS (a search asked it twice, one
   * round trip each); this engine's own writes invalidate() at once, another process's show within it.
   */
  private currentGeneration(): Promise<number> {
    if (!this.generation || this.generation.until <= performance.now()) {
      const read = this.index.generation();
      this.generation = { read, until: performance.now() + GENERATION_KEPT_MS };
      read.catch(() => (this.generation = null));
    }
    return this.generation.read;
  }

  invalidate(): void {
    this.generation = null;
    this.stats.totals = { ...this.stats.totals, generation: -1 };
    this.stats.dfCache.clear();
    this.stats.seen.clear();
    this.stats.filed = null;
    this.globs.clear();
    this.counted.clear();
    this.paths = null;
    this.tops.newSearch();
  }

  show(m: Match): string {
    if ('raw' in m) return rawTsquery(m.raw);
    const q = pgMatch(m);
    return q ? tsquery(q) : '';
  }

  /** The documents a path glob leaves; null when nothing filters by path, or the glob leaves every document. */
  private async docIds(filters: Filters): Promise<string[] | null> {
    if (!filters.path) return null;
    const ids = await this.pathDocIds(filters.path);
    return ids.length > 0 && ids.length === (await this.indexedPaths()).length ? null : ids;
  }

  async fetch(m: Match, filters: Filters, limit: number): Promise<Candidate[]> {
    const text = this.show(m);
    if (!text) return [];
    const forms = [...scoredForms(m).values()];
    const df = await this.stats.docFreq(forms.filter((f) => !f.prefix).map((f) => f.form));
    const model = this.stats.fieldModel();
    try {
      const found = await this.index.candidates(
        text,
        {
          words: forms.map((f) => ({ form: f.form, prefix: f.prefix, weight: f.prefix ? 1 : this.stats.idf(df.get(f.form) ?? 0) })),
          fieldWeights: model.weights as [number, number, number],
          avg: this.stats.totals.avg,
          k1: model.k1,
          b: model.b,
        },
        filters,
        await this.docIds(filters),
        limit,
      );
      // Every chunk the match and filters find was scored to pick these: their number is the count a
      // total asks next, which would scan them all again (185 ms for a phrase of two common words).
      if (found[0]?.matched !== undefined) this.remember(this.countKey(text, filters), found[0].matched);
      return found.map((c) => ({ rowid: c.rowid, raw: -c.score }));
    } catch (e) {
      throw invalid(e);
    }
  }

  async count(m: Match, filters: Filters): Promise<number> {
    const text = this.show(m);
    if (!text) return 0;
    // One whole word, unfiltered: the statistics hold its count (counting visits each chunk's page) —
    // of every collection, so not for a team's user.
    const single = 'words' in m && m.phrases.length === 0 && m.words.length === 1 && !m.words[0]!.prefix ? m.words[0]! : null;
    if (single && currentActor() === undefined && !filters.type && !filters.lang && !filters.path && filters.tags.length === 0) {
      const stem = indexForm(single.text).stem;
      return (await this.stats.docFreq([stem])).get(stem) ?? 0;
    }
    const known = this.counted.get(this.countKey(text, filters));
    if (known !== undefined) return known;
    try {
      return await this.index.count(text, filters, await this.docIds(filters));
    } catch (e) {
      throw invalid(e);
    }
  }

  async texts(rowids: number[]): Promise<ChunkText[]> {
    return this.index.texts(rowids);
  }

  /** A one-unit search's best `depth` chunks from the unit's tops (tops.ts); null: ask the word index. */
  readonly prefixesByStem = true;

  /**
   * A half-typed word finds the chunks with a stem beginning as the letters do or as their stem
   * does (pg-match.ts). Letters that begin with their stem ("heating", stem "heat") find exactly the
   * stem's prefix, whose tops hold those chunks: before, a reader typing "heating" had every chunk
   * holding "heat…" scored, 350 ms at 100,000 passages (npm run bench -- hostile). Letters that do
   * not ("using", stem "use") find two prefixes' chunks: no one unit holds them.
   */
  prefixUnitOf(letters: string): string | null {
    const f = indexForm(letters);
    return f.folded.startsWith(f.stem) ? prefixUnit(f.stem) : null;
  }

  async fromTops(unit: string, filters: Filters, depth: number): Promise<FromTops | null> {
    const { n: _n, ...model } = this.stats.fieldModel();
    return this.tops.best(unit, { ...model, stemPrefixes: true }, filters, depth);
  }

  /**
   * The share of the index's passages the filters leave — for a team's user, of all of them, not of
   * theirs: the totals it scales (n, a unit's matches) count every collection, and an estimate made
   * of those alone told a reader of a tenth of the index about ten times the passages they could find.
   */
  async filterShare(filters: Filters): Promise<number> {
    const share = await this.shareOfSight(filters);
    return currentActor() === undefined ? share : share * (await this.sightShare());
  }

  /**
   * The share of the index's passages the current team user may read, counted again at most once a
   * minute: the passages of each collection counted as the engine, for everyone (a count under a
   * reader's row-level security walked every passage: 200 ms at 100,000), summed over the
   * collections the database says they may read.
   */
  private async sightShare(): Promise<number> {
    const who = currentActor() ?? '';
    const known = this.sight.get(who);
    if (known && known.until > Date.now()) return known.share;
    const [sizes, mine] = await Promise.all([this.collectionSizes(), this.index.readableCollections()]);
    const all = [...sizes.values()].reduce((a, b) => a + b, 0);
    const readable = mine.all ? all : mine.names.reduce((n, c) => n + (sizes.get(c) ?? 0), 0);
    const share = all > 0 ? Math.min(1, readable / all) : 0;
    if (this.sight.size > 5_000) this.sight.clear();
    this.sight.set(who, { share, until: Date.now() + SIGHT_KEPT_MS });
    return share;
  }

  /** Passages by collection, of the whole index, counted at most once a minute. */
  private collectionSizes(): Promise<Map<string, number>> {
    if (!this.sizes || this.sizes.until <= Date.now()) {
      const counted = asEngine(() => this.index.chunksByCollection());
      this.sizes = { counted, until: Date.now() + SIGHT_KEPT_MS };
      counted.catch(() => (this.sizes = null));
    }
    return this.sizes.counted;
  }

  /**
   * The share of the documents the filters leave: of those the machine's owner may read (all), or
   * for a team's user of all of them, counted as the engine at most once a minute (sightShare scales
   * it to theirs) — two counts under a reader's row-level security took 40 ms.
   */
  private async shareOfSight(filters: Filters): Promise<number> {
    if (!filters.type && !filters.lang && !filters.path && filters.tags.length === 0) return 1;
    if (filters.path && !filters.type && !filters.lang && filters.tags.length === 0) {
      // A path alone: the documents it leaves are known already.
      const all = (await this.indexedPaths()).length;
      return all > 0 ? (await this.pathDocIds(filters.path)).length / all : 0;
    }
    if (currentActor() === undefined) return this.index.documentShare(filters, await this.docIds(filters));
    const key = JSON.stringify([filters.type, filters.lang, filters.path, filters.tags]);
    const known = this.shares.get(key);
    if (known && known.until > Date.now()) return known.share;
    const ids = await this.docIds(filters);
    const share = await asEngine(() => this.index.documentShare(filters, ids));
    if (this.shares.size > 5_000) this.shares.clear();
    this.shares.set(key, { share, until: Date.now() + SIGHT_KEPT_MS });
    return share;
  }

  private indexedPaths(): Promise<{ id: string; path: string }[]> {
    if (!this.paths) {
      const paths = asEngine(() => this.index.indexedPaths());
      this.paths = paths;
      paths.catch(() => {
        if (this.paths === paths) this.paths = null;
      });
    }
    return this.paths;
  }

  /**
   * The documents whose path a glob matches — for a team's reader or editor, the path they see
   * (/<collection>/…: acting.ts inPathView), and only in the collections they may read: a glob of the
   * server's folders matches nothing, so no count or share tells them where the server keeps what.
   */
  async pathDocIds(glob: string): Promise<string[]> {
    const view = currentPathView();
    const key = view ? `${currentActor() ?? ''}\u0000${glob}` : glob;
    let ids = this.globs.get(key);
    if (!ids) {
      const passes = pathPasses(glob);
      ids = (await filterInTurns(await this.indexedPaths(), (r) => passes(r.path))).map((r) => r.id);
      this.globs.set(key, ids);
    }
    return ids;
  }

  async substring(letters: string, filters: Filters): Promise<number[]> {
    return this.index.substring(letters, filters, await this.docIds(filters), SUBSTRING_CAP);
  }
}

/** A tsquery PostgreSQL cannot read (a raw expression typed wrong) in the words kb uses for FTS5's; a search stopped at its deadline. */
function invalid(e: unknown): Error {
  const code = (e as { code?: string }).code;
  if (code === '42601' || code === '22023')
    return new KbError('QUERY_INVALID', `the search expression is not valid: ${(e as Error).message}`);
  // statement_timeout (search.deadline_ms) stopped it.
  if (code === '57014') return new KbError('TIMEOUT', 'the search ran past its deadline (search.deadline_ms) and was stopped: narrow it');
  return e as Error;
}
