// Ranking of whole-word queries: FTS5 picks candidates (rare words drive, common words and half-typed
// words only re-rank), then each candidate is scored here: BM25F of the query's words from its own
// counts, scaled by coverage, plus proximity, plus bounded pseudo-relevance feedback for long
// questions. docs/architecture.md ("Search") walks through the steps.
import { turn } from '../turns.js';
import type { Config } from '../../shared/config.js';
import { type Analysis, type QueryWord, analyze } from './analyze.js';
import { expansionModel, expansionScore } from './feedback.js';
import type { Filters } from '../store/doc-filter.js';
import { type LexicalHit, type LexicalResult, normalise } from './lexical-result.js';
import { type Term, stem } from './query.js';
import { queryScorer } from './query-score.js';
import { wordUnit } from './tops.js';
import { spellingVariants } from './variants.js';
import { atLeastTwo, deferredSources, splitSources, union } from './candidate-sources.js';
import { anyOf, type Candidate, type WordSource, type WordStats } from './word-source.js';

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

/** How many chunks make a word common in an index of n: it re-ranks, it does not find candidates. */
export function commonAt(n: number): number {
  return Math.max(COMMON_MIN, n * COMMON_SHARE);
}
/** Counting more rows than this for total_matches costs more than the search: estimate instead (fewer where scoring costs more: WordSource.scoringCost). */
const EXACT_COUNT_MAX = 5000;
/** Postings of the common words up to which the chunks holding a driver and one of them are fetched too (fewer where scoring costs more). */
const BOTH_POSTINGS = 50_000;
/**
 * What scoring the whole words driving one query may cost — the chunks they bring times the words each
 * is scored for (fewer where scoring costs more): past it the commonest of them re-rank only, as
 * common words do, the rarest always driving. A page of 32 ordinary words pasted in matched 63,000
 * of 100,000 passages, each scored for every word (430 ms on PostgreSQL, npm run bench -- hostile);
 * at this budget its rarest words drive (under 50 ms), and a question's few words all do.
 */
const DRIVER_COST = 160_000;
/** The candidates grow at most to this many times the first fetch (two doublings). */
const DEEPEST = 4;

/** Alternative spellings weigh nothing in coverage: a passage is not "missing" the spelling it does not use. */
function queryWords(stats: WordStats, terms: Term[], phrases: string[][], df: Map<string, number>, firstSplit: number): QueryWord[] {
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

export async function rankFts(
  src: WordSource,
  config: Config,
  typedTerms: Term[],
  typedPhrases: string[][],
  filters: Filters,
  limit: number,
  feedback: boolean,
  /** Every chunk a word of the query matches is scored, with no candidate cut: what the cut is measured against (bench). */
  exhaustive = false,
): Promise<LexicalResult> {
  const stats = src.stats;
  const n = stats.n();
  const alt = await spellingVariants(typedTerms, stats);
  const terms = [...typedTerms, ...alt.joined];
  const phrases = [...typedPhrases, ...alt.split];
  /** Phrases from this index on are another spelling of a typed word, not typed themselves. */
  const firstSplit = typedPhrases.length;
  const df = await stats.docFreq([...terms.filter((t) => !t.prefix).map((t) => t.stem), ...phrases.flat().map(stem)]);
  const common = commonAt(n);
  const isCommon = (t: Term): boolean => !t.prefix && (df.get(t.stem) ?? 0) > common;
  // A whole word no passage holds finds nothing, so where the count says so (WordSource.countsEveryForm)
  // it is not asked of the index: among others it only misled the planner — PostgreSQL guesses an
  // unknown word's share of the passages, and 32 of them made it read every passage (440 ms at 100,000,
  // npm run bench -- hostile). It still counts as missing in a passage's coverage.
  const held = src.countsEveryForm ? terms.filter((t) => t.prefix || df.has(t.stem)) : terms;
  if (held.length === 0 && phrases.length === 0 && !exhaustive)
    return { hits: [], total: 0, totalEstimated: false, ftsQuery: src.show(anyOf(terms, [])), strategy: 'fts' };
  // A half-typed word ("un"*) can expand to thousands of index terms: it only finds candidates when
  // the query has no complete word that can; otherwise it just re-ranks (coverage and proximity).
  const complete = held.filter((t) => (!t.prefix || t.drives) && !isCommon(t));
  const whole = held.filter((t) => !t.prefix);
  let drivers: Term[];
  let deferred: Term[];
  /** Every word common: the rarest drives alone, its own order blind to the others. */
  let rarestDrives = false;
  if (exhaustive) {
    drivers = whole.length > 0 ? whole : terms;
    deferred = [];
  } else if (complete.length > 0 || phrases.length > 0) {
    drivers = withinBudget(complete, df, DRIVER_COST / src.scoringCost, new Set(phrases.flat()).size);
    deferred = [...terms.filter(isCommon), ...complete.filter((t) => !drivers.includes(t))];
  } else if (whole.length > 0 && held.length > 1) {
    // Every word is common: the rarest one finds the candidates, the others re-rank them.
    const rarest = whole.reduce((a, b) => ((df.get(a.stem) ?? 0) <= (df.get(b.stem) ?? 0) ? a : b));
    drivers = [rarest];
    deferred = whole.filter((t) => t !== rarest);
    rarestDrives = true;
  } else {
    drivers = held;
    deferred = [];
  }
  const match = anyOf(drivers, phrases);
  const multi = terms.length + phrases.length > 1;
  // One word: `limit` at first, deepened as it needs (kb's BM25F orders a word's chunks a little
  // otherwise than FTS5's bm25).
  const first = Math.max(multi ? limit * RERANK_FACTOR : limit, feedback ? FEEDBACK_DEPTH : multi ? RERANK_DEPTH : 0);
  // One word or prefix alone, held by thousands of chunks: its tops answer (tops.ts), not FTS5.
  const single = drivers.length === 1 && phrases.length === 0 && !exhaustive ? drivers[0]! : null;
  const unit = single ? (single.prefix ? src.prefixUnitOf(single.text) : wordUnit(single.stem)) : null;
  const tops = unit ? await src.fromTops(unit, filters, first) : null;
  const topIdf = tops ? stats.idf(single?.prefix ? tops.matches : (df.get(single?.stem ?? '') ?? tops.matches)) : 0;
  // FTS5 orders the candidates by its own bm25, not by the score kb gives them (candidateRanker), so
  // more are fetched than are scored at first (deepened): FTS5 scores every match whatever the
  // limit, and only the scoring here costs.
  const asked = tops ? first : exhaustive ? Number.MAX_SAFE_INTEGER : first * DEEPEST;
  const split = !exhaustive && phrases.length === 0 ? await splitSources(src, stats, filters, drivers, df, asked) : null;
  const fetched = tops
    ? tops.rowids.map((rowid, i) => ({ rowid, raw: -tops.scores[i]! * topIdf }))
    : split
      ? union(split)
      : await src.fetch(match, filters, asked);
  /** Every chunk a driver is in was fetched: what the drivers match is known, not estimated. */
  const fetchedAll = split ? split.every((l) => l.length < asked) : fetched.length < asked;
  const ranker = candidateRanker(src, config, { terms, phrases, firstSplit, df, drivers, deferred, feedback, multi });
  const sources = [
    ...(split ?? [fetched]),
    ...(exhaustive
      ? []
      : await deferredSources(src, filters, {
          drivers,
          deferred,
          both: rarestDrives || deferred.reduce((sum, t) => sum + (df.get(t.stem) ?? 0), 0) <= BOTH_POSTINGS / src.scoringCost,
          fetched: fetched.length,
          limit,
          asked,
        })),
  ];
  const hits = await deepened(sources, exhaustive ? Number.MAX_SAFE_INTEGER : first, limit, ranker);
  let total: number;
  let totalEstimated = false;
  if (tops && single?.prefix && fetched.length === asked) {
    // Counting every chunk a heavy prefix matches is what the tops spare: estimated from their count.
    total = Math.max(fetched.length, Math.round(tops.matches * (await src.filterShare(filters))));
    totalEstimated = true;
  } else if (fetchedAll) {
    total = fetched.length;
    // Chunks holding only deferred (common) words are not candidates; their number is estimated.
    if (deferred.length > 0) {
      const missAll = deferred.reduce((p, t) => p * (1 - (df.get(t.stem) ?? 0) / n), 1);
      total = Math.round(total + (n - total) * (1 - missAll));
      totalEstimated = true;
    }
  } else {
    const searched = [...drivers.filter((t) => !t.prefix), ...deferred];
    const sumDf = searched.reduce((acc, t) => acc + (df.get(t.stem) ?? 0), 0);
    const exactOk =
      deferred.length === 0 && (sumDf <= EXACT_COUNT_MAX / src.scoringCost || drivers.some((t) => t.prefix) || phrases.length > 0);
    if (exactOk) total = await src.count(match, filters);
    else {
      // Chunks holding at least one word, among those passing the filters; words and filters assumed
      // independent. Never below what was seen.
      const missAll = searched.reduce((p, t) => p * (1 - (df.get(t.stem) ?? 0) / n), 1);
      total = Math.max(fetched.length, Math.round(n * (1 - missAll) * (await src.filterShare(filters))));
      totalEstimated = true;
    }
  }
  // Explain says where the candidates came from: a unit's kept tops are not an FTS5 query.
  const expr = src.show(match);
  const ftsQuery = tops ? `tops of ${expr}` : split ? `tops of each of ${expr}, and ${src.show(atLeastTwo(drivers))}` : expr;
  return { hits: hits.slice(0, limit), total, totalEstimated, ftsQuery, strategy: 'fts' };
}

/**
 * The drivers whose scoring fits the budget, rarest first; half-typed words and the rarest whole word
 * always drive. Every chunk found is scored for each driver and each word of the phrases (which drive
 * too): a pasted page whose quotes made phrases of 25 words scored 2,500 chunks for 32 words, 115 ms
 * on PostgreSQL (npm run bench -- hostile).
 */
function withinBudget(drivers: Term[], df: Map<string, number>, budget: number, phraseWords: number): Term[] {
  const byDf = drivers.filter((t) => !t.prefix).sort((a, b) => (df.get(a.stem) ?? 0) - (df.get(b.stem) ?? 0));
  let postings = 0;
  const kept = new Set(
    byDf.filter((t, i) => {
      postings += df.get(t.stem) ?? 0;
      return i === 0 || postings * (i + 1 + phraseWords) <= budget;
    }),
  );
  return drivers.filter((t) => t.prefix || kept.has(t));
}

/**
 * The best hits from candidate lists in FTS5's order (or a unit's tops), `first` of each scored at
 * first. While the best `limit` reach into the last quarter of what was scored of a list, the cut was
 * near enough to have dropped one that belonged there: twice as many of that list are scored.
 */
async function deepened(
  sources: Candidate[][],
  first: number,
  limit: number,
  ranker: (cands: Candidate[]) => Promise<LexicalHit[]>,
): Promise<LexicalHit[]> {
  const shown = sources.map((s) => Math.min(s.length, first));
  const pool = (): Candidate[] => {
    const seen = new Set<number>();
    return sources.flatMap((s, i) => s.slice(0, shown[i]).filter((c) => !seen.has(c.rowid) && (seen.add(c.rowid), true)));
  };
  let hits = await ranker(pool());
  for (;;) {
    let deeper = false;
    sources.forEach((s, i) => {
      if (shown[i]! < s.length && reachesTail(hits, s.slice(0, shown[i]), limit)) {
        shown[i] = Math.min(s.length, shown[i]! * 2);
        deeper = true;
      }
    });
    if (!deeper) return hits;
    hits = await ranker(pool());
  }
}

/** What a query brings to the scoring of its candidates. */
interface Query {
  terms: Term[];
  phrases: string[][];
  firstSplit: number;
  df: Map<string, number>;
  drivers: Term[];
  deferred: Term[];
  feedback: boolean;
  multi: boolean;
}

/** Whether any of the best `limit` hits came from the last quarter of FTS5's candidates: the cut was near enough to matter. */
function reachesTail(hits: LexicalHit[], cands: { rowid: number }[], limit: number): boolean {
  const tail = new Set(cands.slice(Math.floor((cands.length * 3) / 4)).map((c) => c.rowid));
  return hits.slice(0, limit).some((h) => tail.has(h.rowid));
}

/** Candidates whose texts are read and analysed between two turns. */
const TEXTS_PER_TURN = 64;

/** Scores candidates (in FTS5's order) into hits, best first; a chunk's analysis is made once however often it is asked. */
function candidateRanker(src: WordSource, config: Config, q: Query): (cands: Candidate[]) => Promise<LexicalHit[]> {
  const { terms, phrases, firstSplit, df, drivers, deferred, feedback, multi } = q;
  const stats = src.stats;
  const s = config.search;
  const words = queryWords(stats, terms, phrases, df, firstSplit);
  const phraseWords = new Set(phrases.flat());
  const fields = stats.fieldModel();
  const scorer = queryScorer(terms, phrases, firstSplit, df, fields);
  const deferredScore = (a: Analysis): number => deferred.reduce((sum, t) => sum + scorer.term(a, t), 0);
  // FTS5's bm25 uses Robertson's idf, log((N - n + 0.5) / (n + 0.5)), which is zero for a word in
  // half the chunks or more: in a small folder of git notes, "git" would score 0. So FTS5 only picks
  // the candidates, and the score is BM25F (bm25.ts) computed here from each candidate's counts.
  // Half-typed words keep FTS5's score (their expansions' counts are not ours to redo).
  const rescore = drivers.every((t) => !t.prefix);
  const analysed = new Map<number, Analysis>();
  return async (cands) => {
    const fresh = cands.filter((c) => !analysed.has(c.rowid)).map((c) => c.rowid);
    // In turns (turns.ts): a thousand hits' texts read and analysed hold the thread a few hundred ms.
    for (let at = 0; at < fresh.length; at += TEXTS_PER_TURN) {
      await turn();
      const some = fresh.slice(at, at + TEXTS_PER_TURN);
      (await src.texts(some)).forEach((t, i) => analysed.set(some[i]!, analyze(words, t.title, t.heading, t.text, feedback)));
    }
    const analyses = cands.map((c) => analysed.get(c.rowid)!);
    const raws = rescore ? analyses.map((a) => -scorer.score(a)) : cands.map((c, i) => c.raw - deferredScore(analyses[i]!));
    const adjusted = raws.map((raw, i) =>
      multi ? raw * (1 + s.coverage_boost * analyses[i]!.coverage) - s.proximity_boost * analyses[i]!.proximity : raw,
    );
    let added: number[] | null = null;
    if (feedback && cands.length >= 3) {
      const order = cands.map((_, i) => i).sort((a, b) => adjusted[a]! - adjusted[b]! || cands[a]!.rowid - cands[b]!.rowid);
      const model = await expansionModel(
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
    return hits;
  };
}
