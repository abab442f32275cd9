// Lexical retrieval. FTS5 finds candidates (weighted bm25 over title, heading and body, filters inside
// MATCH); the final score is computed here: bm25 with a non-negative idf, scaled by how much of the
// query a candidate covers, plus how close its query words sit, with pseudo-relevance feedback for
// long questions. A trigram substring path serves CJK/Korean text and words the tokenizer cannot see
// inside ("Engine" in "openEngine"). docs/architecture.md ("Search") walks through the steps.
import type { Statement } from 'better-sqlite3';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Db } from '../store/db.js';
import { type Analysis, type QueryWord, analyze } from './analyze.js';
import { expansionModel, expansionScore } from './feedback.js';
import { type Filters, filterFts, filterSql, pathFilterSql, pathMatcher } from './filters.js';
import { IndexStats } from './index-stats.js';
import { type ParsedQuery, type Term, stem, toFtsExpression } from './query.js';
import { queryScorer } from './query-score.js';
import { merge, substringSpans } from './substring.js';
import { spellingVariants } from './variants.js';

export interface LexicalHit {
  rowid: number;
  /** Normalised to (0, 1): s / (1 + s) of the final score s. */
  score: number;
  bm25: number | null;
  coverage: number | null;
  proximity: number | null;
  /** What feedback added to the score; null when it did not run. */
  feedback: number | null;
  matched: string[];
  /** Where query words occur in the chunk text, for snippets. */
  spans: [number, number][];
}

export interface LexicalResult {
  hits: LexicalHit[];
  total: number;
  /** True when `total` is estimated from term frequencies rather than counted. */
  totalEstimated: boolean;
  ftsQuery: string | null;
  /** How the hits were found; 'substring' uses the trigram index. */
  strategy: 'fts' | 'substring' | 'raw' | 'none';
}

const NONE: LexicalResult = { hits: [], total: 0, totalEstimated: false, ftsQuery: null, strategy: 'none' };
/** Re-ranking looks this deep, so a chunk just below the cut can still rise into the results. */
const RERANK_DEPTH = 20;
/**
 * FTS5 orders candidates by its own bm25, not by the score below: fetching twice as many as asked
 * keeps a hit that the final score puts in the top N from being cut before it is scored.
 */
const RERANK_FACTOR = 2;
/** Long questions re-rank deeper: feedback can lift a hit from further down. */
const FEEDBACK_DEPTH = 50;
const SUBSTRING_CAP = 5000;
/**
 * A term in more than 1% of the chunks (and at least 1,000) is "common": it does not drive candidate
 * generation when the query has a rarer term (the MaxScore idea). FTS5 scores bm25 for every row a
 * term matches, so one common word would cost tens of milliseconds; its contribution is added in JS
 * for the candidates instead. A chunk holding only the common words of a query that also has rare
 * ones is not a candidate; it would rank below the chunks holding the rare words almost always.
 */
const COMMON_MIN = 1000;
const COMMON_SHARE = 0.01;
/** Counting more rows than this for total_matches costs more than the search: estimate instead. */
const EXACT_COUNT_MAX = 5000;
const FTS_OPERATORS = new Set(['and', 'or', 'not', 'near']);

function normalise(raw: number): number {
  return -raw / (1 + Math.abs(raw));
}

interface Candidate {
  rowid: number;
  raw: number;
}

interface ChunkText {
  title: string;
  heading: string;
  text: string;
}

export class LexicalSearcher {
  private readonly stmts = new Map<string, Statement>();
  private readonly stats: IndexStats;
  /** Cleared with the index statistics (see checkGeneration). */
  private readonly pathCache = new Map<string, string[]>();

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {
    this.stats = new IndexStats(db, config, (sql) => this.prep(sql));
  }

  private prep(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Drops the caches when chunks changed: an ingest under way, or another process. */
  private checkGeneration(): void {
    if (this.stats.refresh()) this.pathCache.clear();
  }

  invalidate(): void {
    this.stats.invalidate();
    this.pathCache.clear();
  }

  /** BM25's idf of a term in `df` chunks of this index. */
  idf(df: number): number {
    this.checkGeneration();
    return this.stats.idf(df);
  }

  /** Ids of the indexed documents whose path matches a glob (for the vector side's pre-filter). */
  docsMatching(glob: string): string[] {
    this.checkGeneration();
    return this.pathDocIds(glob);
  }

  /** Ids of the indexed documents whose path matches a glob, cached until the next write. */
  private pathDocIds = (glob: string): string[] => {
    let ids = this.pathCache.get(glob);
    if (!ids) {
      const m = pathMatcher(glob);
      const rows = this.prep("SELECT id, path FROM documents WHERE status = 'indexed'").all() as { id: string; path: string }[];
      ids = rows.filter((r) => m(r.path)).map((r) => r.id);
      this.pathCache.set(glob, ids);
    }
    return ids;
  };

  /** Title, heading and text of many chunks in one query, in the order asked. */
  texts(rowids: number[]): ChunkText[] {
    if (rowids.length === 0) return [];
    const rows = this.prep(
      `SELECT c.rowid AS rowid, d.title AS title, c.heading AS heading, c.text AS text
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(rowids)) as (ChunkText & { rowid: number })[];
    const byRow = new Map(rows.map((r) => [r.rowid, r]));
    return rowids.map((r) => byRow.get(r) ?? { title: '', heading: '', text: '' });
  }

  search(q: ParsedQuery, filters: Filters, limit: number): LexicalResult {
    this.checkGeneration();
    if (q.kind === 'empty') return NONE;
    if (q.kind === 'raw') return this.raw(q.raw ?? '', q.words, filters, limit);

    let fts: LexicalResult | null = null;
    if (q.terms.length > 0 || q.phrases.length > 0) {
      const s = this.config.search;
      const long = q.terms.filter((t) => !t.prefix).length >= s.feedback_min_terms;
      fts = this.ranked(q.terms, q.phrases, filters, limit, long && s.feedback && s.feedback_terms > 0);
    }
    if (q.cjk.length > 0) {
      const sub = this.substring(q.cjk, filters, limit);
      return fts ? merge(fts, sub, limit) : sub;
    }
    if (fts && fts.total === 0) {
      // Nothing by whole words: try the words as substrings (identifiers, partial words).
      const words = q.terms.map((t) => t.text).filter((w) => w.length >= 3);
      if (words.length > 0) return this.substring(words, filters, limit);
    }
    return fts ?? NONE;
  }

  private weightsSql(): string {
    const w = this.config.search.weights;
    return `${w.title}, ${w.heading}, ${w.body}, 0`; // meta (filter tokens) never scores
  }

  /** The MATCH expression with the type/lang/tag filters folded in; null when no chunk can match. */
  private withFilters(expr: string, filters: Filters): string | null {
    const ff = filterFts(this.db, filters);
    if (ff.impossible) return null;
    return ff.clause ? `(${expr}) AND ${ff.clause}` : expr;
  }

  private candidates(expr: string, filters: Filters, limit: number): Candidate[] {
    const match = this.withFilters(expr, filters);
    if (match === null) return [];
    const p = pathFilterSql(filters, this.pathDocIds);
    // FTS first, always: a path glob is checked only on rows the index already matched.
    const sql = p.active
      ? `SELECT f.rowid AS rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw
         FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
         WHERE chunks_fts MATCH ? ${p.where} ORDER BY raw, f.rowid LIMIT ?`
      : `SELECT rowid, bm25(chunks_fts, ${this.weightsSql()}) AS raw FROM chunks_fts
         WHERE chunks_fts MATCH ? ORDER BY raw, rowid LIMIT ?`;
    try {
      return this.prep(sql).all(match, ...p.params, limit) as Candidate[];
    } catch (e) {
      throw new KbError('QUERY_INVALID', `the search expression is not valid: ${(e as Error).message.replace(/^fts5: /, '')}`);
    }
  }

  private count(expr: string, filters: Filters): number {
    const match = this.withFilters(expr, filters);
    if (match === null) return 0;
    const p = pathFilterSql(filters, this.pathDocIds);
    const sql = p.active
      ? `SELECT count(*) AS n FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
         WHERE chunks_fts MATCH ? ${p.where}`
      : 'SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?';
    return (this.prep(sql).get(match, ...p.params) as { n: number }).n;
  }

  /** The share of chunks that pass the filters (the most selective one), for estimates. */
  private filterShare(filters: Filters): number {
    const n = this.stats.n();
    let share = 1;
    const tokens = filterFts(this.db, filters).clause?.match(/kb\w+/g) ?? [];
    for (const [, f] of this.stats.docFreq(tokens)) share = Math.min(share, f / n);
    if (tokens.length > 0 && this.stats.docFreq(tokens).size < tokens.length) share = 0;
    if (filters.path) {
      const docs = (this.prep("SELECT count(*) AS n FROM documents WHERE status = 'indexed'").get() as { n: number }).n;
      share = Math.min(share, docs > 0 ? this.pathDocIds(filters.path).length / docs : 0);
    }
    return share;
  }

  /** Alternative spellings weigh nothing in coverage: a passage is not "missing" the spelling it does not use. */
  private queryWords(terms: Term[], phrases: string[][], df: Map<string, number>, firstSplit: number): QueryWord[] {
    const words: QueryWord[] = terms.map((t) => ({
      text: t.text,
      form: t.prefix ? t.text : t.stem,
      prefix: t.prefix,
      weight: t.alternative ? 0 : t.prefix ? 1 : this.stats.idf(df.get(t.stem) ?? 1),
    }));
    // A phrase's words are matched as the index stems them (`"programming languages"` finds
    // "program languages"), like every other word.
    phrases.forEach((p, k) => {
      for (const w of p) words.push({ text: w, form: stem(w), prefix: false, weight: k >= firstSplit ? 0 : this.stats.idf(df.get(stem(w)) ?? 1) });
    });
    return words;
  }

  private ranked(typedTerms: Term[], typedPhrases: string[][], filters: Filters, limit: number, feedback: boolean): LexicalResult {
    const s = this.config.search;
    const n = this.stats.n();
    const alt = spellingVariants(typedTerms, this.stats);
    const terms = [...typedTerms, ...alt.joined];
    const phrases = [...typedPhrases, ...alt.split];
    /** Phrases from this index on are another spelling of a typed word, not typed themselves. */
    const firstSplit = typedPhrases.length;
    const df = this.stats.docFreq([...terms.filter((t) => !t.prefix).map((t) => t.stem), ...phrases.flat().map(stem)]);
    const common = Math.max(COMMON_MIN, n * COMMON_SHARE);
    const isCommon = (t: Term): boolean => !t.prefix && (df.get(t.stem) ?? 0) > common;
    // A half-typed word ("un"*) can expand to thousands of index terms: it only finds candidates when
    // the query has no complete word that can; otherwise it just re-ranks (coverage and proximity).
    const complete = terms.filter((t) => !t.prefix && !isCommon(t));
    const whole = terms.filter((t) => !t.prefix);
    let drivers: Term[];
    let deferred: Term[];
    if (complete.length > 0 || phrases.length > 0) {
      drivers = complete;
      deferred = terms.filter(isCommon);
    } else if (whole.length > 0 && terms.length > 1) {
      // Every word is common: the rarest one finds the candidates, the others re-rank them.
      const rarest = whole.reduce((a, b) => ((df.get(a.stem) ?? 0) <= (df.get(b.stem) ?? 0) ? a : b));
      drivers = [rarest];
      deferred = whole.filter((t) => t !== rarest);
    } else {
      drivers = terms;
      deferred = [];
    }
    const expr = toFtsExpression(drivers, phrases);
    const multi = terms.length + phrases.length > 1;
    // One word: coverage and proximity cannot reorder anything, so bm25's own top is the answer.
    const depth = Math.max(multi ? limit * RERANK_FACTOR : limit, feedback ? FEEDBACK_DEPTH : multi ? RERANK_DEPTH : 0);
    const cands = this.candidates(expr, filters, depth);
    let total: number;
    let totalEstimated = false;
    if (cands.length < depth) {
      total = cands.length;
      // Chunks holding only deferred (common) words are not candidates; their number is estimated.
      if (deferred.length > 0) {
        const missAll = deferred.reduce((p, t) => p * (1 - (df.get(t.stem) ?? 0) / n), 1);
        total = Math.round(total + (n - total) * (1 - missAll));
        totalEstimated = true;
      }
    } else {
      const searched = [...drivers.filter((t) => !t.prefix), ...deferred];
      const sumDf = searched.reduce((acc, t) => acc + (df.get(t.stem) ?? 0), 0);
      const exactOk = deferred.length === 0 && (sumDf <= EXACT_COUNT_MAX || drivers.some((t) => t.prefix) || phrases.length > 0);
      if (exactOk) total = this.count(expr, filters);
      else {
        // Chunks holding at least one word, among those passing the filters; words and filters assumed
        // independent. Never below what was seen.
        const missAll = searched.reduce((p, t) => p * (1 - (df.get(t.stem) ?? 0) / n), 1);
        total = Math.max(cands.length, Math.round(n * (1 - missAll) * this.filterShare(filters)));
        totalEstimated = true;
      }
    }
    const words = this.queryWords(terms, phrases, df, firstSplit);
    const phraseWords = new Set(phrases.flat());
    const texts = this.texts(cands.map((c) => c.rowid));
    // FTS5's bm25 uses Robertson's idf, log((N - n + 0.5) / (n + 0.5)), which is zero for a word in
    // half the chunks or more: in a small folder of git notes, "git" would score 0. So FTS5 only picks
    // the candidates, and the score is BM25F (bm25.ts) computed here from each candidate's counts.
    // Half-typed words keep FTS5's score (their expansions' counts are not ours to redo).
    const rescore = drivers.every((t) => !t.prefix);
    const analyses = cands.map((_, i) => analyze(words, texts[i]!.title, texts[i]!.heading, texts[i]!.text, feedback));
    const fields = this.stats.fieldModel();
    const scorer = queryScorer(terms, phrases, firstSplit, df, fields);
    const deferredScore = (a: Analysis): number => deferred.reduce((sum, t) => sum + scorer.term(a, t), 0);
    const raws = rescore ? analyses.map((a) => -scorer.score(a)) : cands.map((c, i) => c.raw - deferredScore(analyses[i]!));
    const adjusted = raws.map((raw, i) =>
      multi ? raw * (1 + s.coverage_boost * analyses[i]!.coverage) - s.proximity_boost * analyses[i]!.proximity : raw,
    );
    let added: number[] | null = null;
    if (feedback && cands.length >= 3) {
      const order = cands.map((_, i) => i).sort((a, b) => adjusted[a]! - adjusted[b]! || cands[a]!.rowid - cands[b]!.rowid);
      const model = expansionModel(this.stats, order.slice(0, s.feedback_docs).map((i) => analyses[i]!), s.feedback_terms);
      if (model.length > 0) {
        // The expansion may move a candidate by at most feedback_weight × the best score the query's
        // own words gave. (RM3's interpolation scales the expansion by the query's length, so on a long
        // question it outweighed the question's own words.)
        const exp = analyses.map((a) => expansionScore(model, a, fields));
        const bestOwn = Math.max(...adjusted.map((x) => -x));
        const bestExp = Math.max(...exp);
        const scale = bestExp > 0 ? (s.feedback_weight * bestOwn) / bestExp : 0;
        added = exp.map((e) => scale * e);
        added.forEach((x, i) => (adjusted[i] = adjusted[i]! - x));
      }
    }
    const hits: LexicalHit[] = cands.map((c, i) => {
      const a = analyses[i]!;
      const matched = [...a.matched].map((j) => words[j]!.text).filter((w) => !phraseWords.has(w));
      for (const p of phrases) if (p.every((w) => a.matched.has(words.findIndex((x) => x.text === w)))) matched.push(p.join(' '));
      return {
        rowid: c.rowid,
        score: normalise(adjusted[i]!),
        bm25: raws[i]!,
        coverage: multi ? a.coverage : null,
        proximity: multi ? a.proximity : null,
        feedback: added ? added[i]! : null,
        matched,
        spans: a.spans,
      };
    });
    hits.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
    return { hits: hits.slice(0, limit), total, totalEstimated, ftsQuery: expr, strategy: 'fts' };
  }

  private raw(expr: string, typed: string[], filters: Filters, limit: number): LexicalResult {
    const cands = this.candidates(expr, filters, limit);
    const total = cands.length < limit ? cands.length : this.count(expr, filters);
    const words: QueryWord[] = typed
      .filter((w) => !FTS_OPERATORS.has(w))
      .map((w) => ({ text: w, form: w, prefix: true, weight: 1 }));
    const texts = this.texts(cands.map((c) => c.rowid));
    const hits = cands.map((c, i) => {
      const t = texts[i]!;
      const a = analyze(words, t.title, t.heading, t.text);
      return {
        rowid: c.rowid,
        score: normalise(c.raw),
        bm25: c.raw,
        coverage: null,
        proximity: null,
        feedback: null,
        matched: [...a.matched].map((j) => words[j]!.text),
        spans: a.spans,
      };
    });
    return { hits, total, totalEstimated: false, ftsQuery: expr, strategy: 'raw' };
  }

  /** Substring matching on the trigram index: a hit scores the idf of the words it contains. */
  private substring(words: string[], filters: Filters, limit: number): LexicalResult {
    const f = filterSql(filters);
    // No ESCAPE clause: with one, SQLite cannot hand LIKE to the trigram index and scans every chunk.
    // Query words are letters and digits only (query.ts), so they hold no LIKE wildcards anyway.
    const sql = f.active
      ? `SELECT t.rowid AS rowid FROM chunks_tri t CROSS JOIN chunks c ON c.rowid = t.rowid CROSS JOIN documents d ON d.id = c.doc_id
         WHERE t.text LIKE ? ${f.where} LIMIT ${SUBSTRING_CAP}`
      : `SELECT rowid FROM chunks_tri WHERE text LIKE ? LIMIT ${SUBSTRING_CAP}`;
    const byRow = new Map<number, { score: number; matched: string[] }>();
    for (const w of words.filter((x) => !/[%_\\]/.test(x))) {
      const rows = this.prep(sql).all(`%${w}%`, ...(f.active ? f.params : [])) as { rowid: number }[];
      const idf = this.stats.idf(rows.length);
      for (const r of rows) {
        const e = byRow.get(r.rowid) ?? { score: 0, matched: [] };
        e.score += idf;
        e.matched.push(w);
        byRow.set(r.rowid, e);
      }
    }
    const ranked = [...byRow.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, limit);
    const texts = this.texts(ranked.map(([rowid]) => rowid));
    const hits: LexicalHit[] = ranked.map(([rowid, e], i) => ({
      rowid,
      score: e.score / (1 + e.score),
      bm25: null,
      coverage: e.matched.length / words.length,
      proximity: null,
      feedback: null,
      matched: e.matched,
      spans: substringSpans(texts[i]!.text, e.matched),
    }));
    return { hits, total: byRow.size, totalEstimated: false, ftsQuery: null, strategy: 'substring' };
  }
}
