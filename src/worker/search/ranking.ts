// Ranking of whole-word queries: FTS5 picks candidates (rare words drive, common words and half-typed
// words only re-rank), then each candidate is scored here: BM25F of the query's words from its own
// counts, scaled by coverage, plus proximity, plus bounded pseudo-relevance feedback for long
// questions. docs/architecture.md ("Search") walks through the steps.
import type { Config } from '../../shared/config.js';
import { type Analysis, type QueryWord, analyze } from './analyze.js';
import type { Candidates } from './candidates.js';
import { expansionModel, expansionScore } from './feedback.js';
import type { Filters } from '../store/doc-filter.js';
import type { IndexStats } from './index-stats.js';
import { type LexicalHit, type LexicalResult, normalise } from './lexical-result.js';
import { type Term, stem, toFtsExpression } from './query.js';
import { queryScorer } from './query-score.js';
import { prefixUnit, wordUnit } from './tops.js';
import { spellingVariants } from './variants.js';

/** Re-ranking looks this deep, so a chunk just below the cut can still rise into the results. */
const RERANK_DEPTH = 20;
/**
 * FTS5 orders candidates by its own bm25, not by the score below: fetching twice as many as asked
 * keeps a hit that the final score puts in the top N from being cut before it is scored.
 */
const RERANK_FACTOR = 2;
/** Long questions re-rank deeper: feedback can lift a hit from further down. */
const FEEDBACK_DEPTH = 50;
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

/** Alternative spellings weigh nothing in coverage: a passage is not "missing" the spelling it does not use. */
function queryWords(stats: IndexStats, terms: Term[], phrases: string[][], df: Map<string, number>, firstSplit: number): QueryWord[] {
  const words: QueryWord[] = terms.map((t) => ({
    text: t.text,
    form: t.prefix ? t.text : t.stem,
    prefix: t.prefix,
    weight: t.alternative ? 0 : t.prefix ? 1 : stats.idf(df.get(t.stem) ?? 1),
  }));
  // A phrase's words are matched as the index stems them (`"programming languages"` finds
  // "program languages"), like every other word.
  phrases.forEach((p, k) => {
    for (const w of p) words.push({ text: w, form: stem(w), prefix: false, weight: k >= firstSplit ? 0 : stats.idf(df.get(stem(w)) ?? 1) });
  });
  return words;
}

export function rankFts(
  src: Candidates,
  config: Config,
  typedTerms: Term[],
  typedPhrases: string[][],
  filters: Filters,
  limit: number,
  feedback: boolean,
): LexicalResult {
  const stats = src.stats;
  const s = config.search;
  const n = stats.n();
  const alt = spellingVariants(typedTerms, stats);
  const terms = [...typedTerms, ...alt.joined];
  const phrases = [...typedPhrases, ...alt.split];
  /** Phrases from this index on are another spelling of a typed word, not typed themselves. */
  const firstSplit = typedPhrases.length;
  const df = stats.docFreq([...terms.filter((t) => !t.prefix).map((t) => t.stem), ...phrases.flat().map(stem)]);
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
  // One word or prefix alone, held by thousands of chunks: its tops answer (tops.ts), not FTS5.
  const single = drivers.length === 1 && phrases.length === 0 ? drivers[0]! : null;
  const tops = single ? src.fromTops(single.prefix ? prefixUnit(single.text) : wordUnit(single.stem), filters, depth) : null;
  const topIdf = tops ? stats.idf(single?.prefix ? tops.matches : (df.get(single?.stem ?? '') ?? tops.matches)) : 0;
  const cands = tops ? tops.rowids.map((rowid, i) => ({ rowid, raw: -tops.scores[i]! * topIdf })) : src.fetch(expr, filters, depth);
  let total: number;
  let totalEstimated = false;
  if (tops && single?.prefix && cands.length === depth) {
    // Counting every chunk a heavy prefix matches is what the tops spare: estimated from their count.
    total = Math.max(cands.length, Math.round(tops.matches * src.filterShare(filters)));
    totalEstimated = true;
  } else if (cands.length < depth) {
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
    if (exactOk) total = src.count(expr, filters);
    else {
      // Chunks holding at least one word, among those passing the filters; words and filters assumed
      // independent. Never below what was seen.
      const missAll = searched.reduce((p, t) => p * (1 - (df.get(t.stem) ?? 0) / n), 1);
      total = Math.max(cands.length, Math.round(n * (1 - missAll) * src.filterShare(filters)));
      totalEstimated = true;
    }
  }
  const words = queryWords(stats, terms, phrases, df, firstSplit);
  const phraseWords = new Set(phrases.flat());
  const texts = src.texts(cands.map((c) => c.rowid));
  // FTS5's bm25 uses Robertson's idf, log((N - n + 0.5) / (n + 0.5)), which is zero for a word in
  // half the chunks or more: in a small folder of git notes, "git" would score 0. So FTS5 only picks
  // the candidates, and the score is BM25F (bm25.ts) computed here from each candidate's counts.
  // Half-typed words keep FTS5's score (their expansions' counts are not ours to redo).
  const rescore = drivers.every((t) => !t.prefix);
  const analyses = cands.map((_, i) => analyze(words, texts[i]!.title, texts[i]!.heading, texts[i]!.text, feedback));
  const fields = stats.fieldModel();
  const scorer = queryScorer(terms, phrases, firstSplit, df, fields);
  const deferredScore = (a: Analysis): number => deferred.reduce((sum, t) => sum + scorer.term(a, t), 0);
  const raws = rescore ? analyses.map((a) => -scorer.score(a)) : cands.map((c, i) => c.raw - deferredScore(analyses[i]!));
  const adjusted = raws.map((raw, i) =>
    multi ? raw * (1 + s.coverage_boost * analyses[i]!.coverage) - s.proximity_boost * analyses[i]!.proximity : raw,
  );
  let added: number[] | null = null;
  if (feedback && cands.length >= 3) {
    const order = cands.map((_, i) => i).sort((a, b) => adjusted[a]! - adjusted[b]! || cands[a]!.rowid - cands[b]!.rowid);
    const model = expansionModel(
      stats,
      order.slice(0, s.feedback_docs).map((i) => analyses[i]!),
      s.feedback_terms,
    );
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
  // Explain says where the candidates came from: a unit's kept tops are not an FTS5 query.
  return { hits: hits.slice(0, limit), total, totalEstimated, ftsQuery: tops ? `tops of ${expr}` : expr, strategy: 'fts' };
}
