// Lexical retrieval. FTS5 finds candidates (weighted bm25 over title, heading and body, filters inside
// MATCH); the final score is computed here: bm25 with a non-negative idf, scaled by how much of the
// query a candidate covers, plus how close its query words sit, with pseudo-relevance feedback for
// long questions. A trigram substring path serves CJK/Korean text and words the tokenizer cannot see
// inside ("Engine" in "openEngine"). docs/architecture.md ("Search") walks through the steps.
import type { Statement } from 'better-sqlite3';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import { chunksGeneration, type Db } from '../store/db.js';
import { type Analysis, type QueryWord, analyze } from './analyze.js';
import { bm25f, type FieldModel, idf as bm25Idf } from './bm25.js';
import { expansionModel, expansionScore } from './feedback.js';
import { type Filters, filterFts, filterSql, pathFilterSql, pathMatcher } from './filters.js';
import { type ParsedQuery, type Term, ftsString, isStopword, stem, toFtsExpression } from './query.js';

export interface LexicalHit {
  rowid: number;
  /** Normalised to (0, 1): s / (1 + s) of the final score s. */
  score: number;
  bm25: number | null;
  coverage: number | null;
  proximity: number | null;
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
/** A word is tried as two words only when it is this rare in the index (a few lookups per word). */
const SPLIT_MAX_DF = 20;
/** Halves shorter than this are not words worth trying ("e-mail" is not required to find "email"). */
const SPLIT_MIN_PART = 3;
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
/** Document frequencies are sampled (see docFreq) on indexes of at least this many chunks. */
const DF_SAMPLE_MIN_CHUNKS = 20_000;
const DF_SLICES = 32;
const DF_SAMPLE_ENOUGH = 32;
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
  private chunkCount: number | null = null;
  private avgFields: [number, number, number] | null = null;
  private rowidRange: { lo: number; hi: number } | null = null;
  private readonly dfCache = new Map<string, number>();
  private readonly occursCache = new Map<string, boolean>();
  private readonly pathCache = new Map<string, string[]>();
  /** The chunk generation the caches above belong to; any insert or delete, here or elsewhere, moves it. */
  private generation = -1;

  constructor(
    private readonly db: Db,
    private readonly config: Config,
  ) {}

  private prep(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  /** Number of chunks, for idf; cached until the engine writes (invalidate). */
  private n(): number {
    this.chunkCount ??= (this.prep('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    return this.chunkCount;
  }

  /** Drops the caches when chunks changed: an ingest under way, or another process. */
  private checkGeneration(): void {
    const g = chunksGeneration(this.db);
    if (g !== this.generation) {
      this.invalidate();
      this.generation = g;
    }
  }

  invalidate(): void {
    this.chunkCount = null;
    this.avgFields = null;
    this.rowidRange = null;
    this.dfCache.clear();
    this.occursCache.clear();
    this.pathCache.clear();
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

  /** What BM25F needs: field weights, average tokens per chunk in each field (from FTS5's own statistics record), N. */
  private fieldModel(): FieldModel {
    if (this.avgFields === null) {
      const row = this.prep('SELECT block FROM chunks_fts_data WHERE id = 1').get() as { block: Buffer } | undefined;
      const v = row ? readVarints(row.block) : [];
      const rows = v[0] ?? 0;
      // Columns: title, heading, text, meta.
      this.avgFields = [1, 2, 3].map((c) => (rows > 0 ? (v[c] ?? 0) / rows : 1)) as [number, number, number];
    }
    const w = this.config.search.weights;
    return { weights: [w.title, w.heading, w.body], avgLength: this.avgFields, n: this.n() };
  }

  /**
   * Document frequency of index terms (stems), cached until the next write. fts5vocab counts a term's
   * documents by walking its whole doclist, which costs milliseconds for a common word; so on a big
   * index a term is first counted inside a 1/32 slice of the rowids (FTS5 seeks there), and a term
   * that is common there gets the scaled-up estimate (within a few percent: it only sets weights).
   */
  docFreq(stems: string[]): Map<string, number> {
    const out = new Map<string, number>();
    const exact = this.prep('SELECT doc FROM chunks_vocab WHERE term = ?');
    const big = this.n() >= DF_SAMPLE_MIN_CHUNKS;
    const range = big ? this.rowids() : null;
    for (const stem of stems) {
      let df = this.dfCache.get(stem);
      if (df === undefined) {
        if (range) {
          const inSlice = (
            this.prep('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid >= ? AND rowid < ?').get(
              ftsString(stem),
              BigInt(range.lo),
              BigInt(range.hi),
            ) as { n: number }
          ).n;
          if (inSlice >= DF_SAMPLE_ENOUGH) df = Math.round(inSlice * DF_SLICES);
        }
        df ??= ((exact.get(stem) as { doc: number } | undefined)?.doc ?? 0);
        this.dfCache.set(stem, df);
      }
      if (df > 0) out.set(stem, df);
    }
    return out;
  }

  /** The middle 1/DF_SLICES of the rowid range. */
  private rowids(): { lo: number; hi: number } {
    if (!this.rowidRange) {
      const r = this.prep('SELECT min(rowid) AS lo, max(rowid) AS hi FROM chunks').get() as { lo: number | null; hi: number | null };
      const lo = r.lo ?? 0;
      const span = Math.max(1, Math.ceil(((r.hi ?? 0) - lo + 1) / DF_SLICES));
      const start = lo + Math.floor(((r.hi ?? 0) - lo) / 2);
      this.rowidRange = { lo: start, hi: start + span };
    }
    return this.rowidRange;
  }

  idf(df: number): number {
    return bm25Idf(this.n(), df);
  }

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
    const n = this.n();
    let share = 1;
    const tokens = filterFts(this.db, filters).clause?.match(/kb\w+/g) ?? [];
    for (const [, f] of this.docFreq(tokens)) share = Math.min(share, f / n);
    if (tokens.length > 0 && this.docFreq(tokens).size < tokens.length) share = 0;
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
      weight: t.alternative ? 0 : t.prefix ? 1 : this.idf(df.get(t.stem) ?? 1),
    }));
    // A phrase's words are matched as the index stems them (`"programming languages"` finds
    // "program languages"), like every other word.
    phrases.forEach((p, k) => {
      for (const w of p) words.push({ text: w, form: stem(w), prefix: false, weight: k >= firstSplit ? 0 : this.idf(df.get(stem(w)) ?? 1) });
    });
    return words;
  }

  /**
   * Other spellings of the same letters, as alternatives: two neighbouring words joined ("roll back",
   * "roll-back" → "rollback") when the index holds the joined word, and a rare word split in two
   * ("rollback" → the phrase "roll back") when the index holds both halves. (The tokenizer already
   * reads "roll-back" as "roll back".)
   */
  private variants(terms: Term[]): { joined: Term[]; split: string[][] } {
    const joined: Term[] = [];
    const split: string[][] = [];
    const whole = terms.filter((t) => !t.prefix && /^\p{L}+$/u.test(t.text));
    for (let i = 0; i + 1 < whole.length; i++) {
      const text = whole[i]!.text + whole[i + 1]!.text;
      const st = stem(text);
      if (!terms.some((t) => t.stem === st) && this.occurs(text)) joined.push({ text, stem: st, prefix: false, count: 1, alternative: true });
    }
    for (const t of whole) {
      if (t.text.length < 2 * SPLIT_MIN_PART || (this.docFreq([t.stem]).get(t.stem) ?? 0) > SPLIT_MAX_DF) continue;
      for (let k = SPLIT_MIN_PART; k <= t.text.length - SPLIT_MIN_PART; k++) {
        const a = t.text.slice(0, k);
        const b = t.text.slice(k);
        if (isStopword(a) || isStopword(b)) continue;
        if (this.occurs(a) && this.occurs(b) && this.occurs(`${a} ${b}`)) split.push([a, b]);
      }
    }
    return { joined, split };
  }

  /**
   * Whether some chunk holds this word (or these words, one after the other): the first row of its
   * doclist, a seek, where counting its chunks (fts5vocab) would walk the whole list of a common word.
   */
  private occurs(words: string): boolean {
    let yes = this.occursCache.get(words);
    if (yes === undefined) {
      yes = this.prep('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1').get(ftsString(words)) !== undefined;
      this.occursCache.set(words, yes);
    }
    return yes;
  }

  private ranked(typedTerms: Term[], typedPhrases: string[][], filters: Filters, limit: number, feedback: boolean): LexicalResult {
    const s = this.config.search;
    const n = this.n();
    const alt = this.variants(typedTerms);
    const terms = [...typedTerms, ...alt.joined];
    const phrases = [...typedPhrases, ...alt.split];
    /** Phrases from this index on are another spelling of a typed word, not typed themselves. */
    const firstSplit = typedPhrases.length;
    const df = this.docFreq([...terms.filter((t) => !t.prefix).map((t) => t.stem), ...phrases.flat().map(stem)]);
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
    const fields = this.fieldModel();
    // What is scored: each distinct stem once, weighted by how often the query uses it, with the index
    // of its word in `words` (words[i] is terms[i]; phrase words follow). A phrase's words are words of
    // the query like any other (a quoted title pasted into a question is still its words).
    const scoring = new Map<string, { count: number; at: number }>();
    terms.forEach((t, i) => {
      if (!t.prefix) scoring.set(t.stem, { count: t.count, at: i });
    });
    let at = terms.length;
    // A typed phrase's words count as words of the query. A phrase that is another spelling of a
    // typed word ("roll back" for "rollback") counts only where it occurs as written: "back" alone
    // is not "rollback".
    const phraseAt: number[][] = phrases.map((p, k) =>
      p.map((w) => {
        const st = stem(w);
        const e = scoring.get(st);
        if (k < firstSplit) {
          if (e) e.count++;
          else scoring.set(st, { count: 1, at });
        }
        return at++;
      }),
    );
    const wordScore = (a: Analysis, st: string, i: number): number => bm25f(a.fieldTf[i] ?? [0, 0, 0], a.fieldLength, df.get(st) ?? 0, fields);
    const queryScore = (a: Analysis): number => {
      let sum = 0;
      for (const [st, e] of scoring) sum += e.count * wordScore(a, st, e.at);
      // A phrase found as written counts its words once more than the same words scattered (an
      // alternative spelling: once).
      phrases.forEach((p, k) => {
        if (inSequence(a.positions, phraseAt[k]!)) p.forEach((w, j) => (sum += wordScore(a, stem(w), phraseAt[k]![j]!)));
      });
      return sum;
    };
    const deferredScore = (a: Analysis): number => deferred.reduce((sum, t) => sum + t.count * wordScore(a, t.stem, terms.indexOf(t)), 0);
    const raws = rescore ? analyses.map((a) => -queryScore(a)) : cands.map((c, i) => c.raw - deferredScore(analyses[i]!));
    const adjusted = raws.map((raw, i) =>
      multi ? raw * (1 + s.coverage_boost * analyses[i]!.coverage) - s.proximity_boost * analyses[i]!.proximity : raw,
    );
    if (feedback && cands.length >= 3) {
      const order = cands.map((_, i) => i).sort((a, b) => adjusted[a]! - adjusted[b]! || cands[a]!.rowid - cands[b]!.rowid);
      const model = expansionModel(this, order.slice(0, s.feedback_docs).map((i) => analyses[i]!), s.feedback_terms);
      if (model.length > 0) {
        // The expansion may move a candidate by at most feedback_weight × the best score the query's
        // own words gave. (RM3's interpolation scales the expansion by the query's length, so on a long
        // question it outweighed the question's own words.)
        const exp = analyses.map((a) => expansionScore(model, a, fields));
        const bestOwn = Math.max(...adjusted.map((x) => -x));
        const bestExp = Math.max(...exp);
        const scale = bestExp > 0 ? (s.feedback_weight * bestOwn) / bestExp : 0;
        exp.forEach((e, i) => (adjusted[i] = adjusted[i]! - scale * e));
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
      const idf = this.idf(rows.length);
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
      matched: e.matched,
      spans: substringSpans(texts[i]!.text, e.matched),
    }));
    return { hits, total: byRow.size, totalEstimated: false, ftsQuery: null, strategy: 'substring' };
  }
}

/** Whether the words at these indexes occur one right after the other somewhere in the body. */
function inSequence(positions: number[][], at: number[]): boolean {
  const first = positions[at[0]!] ?? [];
  const rest = at.slice(1).map((i) => new Set(positions[i] ?? []));
  return first.some((p) => rest.every((set, k) => set.has(p + k + 1)));
}

function substringSpans(text: string, words: string[]): [number, number][] {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (const w of words) {
    const needle = w.toLowerCase();
    for (let i = lower.indexOf(needle); i >= 0 && spans.length < 200; i = lower.indexOf(needle, i + needle.length)) {
      spans.push([i, i + needle.length]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

function merge(a: LexicalResult, b: LexicalResult, limit: number): LexicalResult {
  const byRow = new Map<number, LexicalHit>();
  for (const h of [...a.hits, ...b.hits]) {
    const prev = byRow.get(h.rowid);
    if (!prev) byRow.set(h.rowid, { ...h });
    else {
      prev.score += h.score;
      prev.matched = [...new Set([...prev.matched, ...h.matched])];
      prev.spans = [...prev.spans, ...h.spans].sort((x, y) => x[0] - y[0]);
    }
  }
  const hits = [...byRow.values()].sort((x, y) => y.score - x.score || x.rowid - y.rowid).slice(0, limit);
  return { hits, total: Math.max(a.total, b.total, hits.length), totalEstimated: a.totalEstimated, ftsQuery: a.ftsQuery, strategy: 'fts' };
}

/** SQLite/FTS5 varints: big-endian 7-bit groups, a 9th byte carries 8 bits. */
function readVarints(buf: Uint8Array): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < buf.length) {
    let v = 0;
    let n = 0;
    for (;;) {
      const byte = buf[i++] ?? 0;
      if (n === 8) {
        v = v * 256 + byte;
        break;
      }
      v = v * 128 + (byte & 0x7f);
      n++;
      if ((byte & 0x80) === 0 || i >= buf.length) break;
    }
    out.push(v);
  }
  return out;
}
