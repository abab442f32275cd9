// Lexical retrieval: a parsed query to hits. Whole words go through the store's candidates and kb's
// own ranking (ranking.ts); raw expressions in the store's query language are run as typed; CJK text
// and words with no whole-word match go through substrings (substring.ts). The word index is a
// WordSource (word-source.ts): SQLite's FTS5 or PostgreSQL's tsvectors. docs/architecture.md
// ("Search") walks through it.
import type { Config } from '../../shared/config.js';
import { type QueryWord, analyze } from './analyze.js';
import type { Filters } from '../store/doc-filter.js';
import { type LexicalResult, NO_HITS, normalise } from './lexical-result.js';
import { corrections } from './spelling.js';
import { isStopword, type ParsedQuery, stem, type Term } from './query.js';
import { QUERY_LIMITS } from './query-limits.js';
import { TOPS_INDEX_FACTOR } from './tops.js';
import { commonAt, rankFts } from './ranking.js';
import { merge, substringSearch } from './substring.js';
import { anyOf, type WordSource } from './word-source.js';

export type { LexicalHit, LexicalResult } from './lexical-result.js';

const FTS_OPERATORS = new Set(['and', 'or', 'not', 'near']);
/** A stem tried for a half-typed word is this long at least, and at most this many letters shorter. */
const STEM_MIN = 5;
const STEM_MAX_CUT = 5;

export class LexicalSearcher {
  constructor(
    private readonly src: WordSource,
    private readonly config: Config,
  ) {}

  invalidate(): void {
    this.src.invalidate();
  }

  /** BM25's idf of a term in `df` chunks of this index. */
  async idf(df: number): Promise<number> {
    await this.src.refresh();
    return this.src.stats.idf(df);
  }

  /** Ids of the indexed documents whose path matches a glob (for the vector side's pre-filter). */
  async docsMatching(glob: string): Promise<string[]> {
    await this.src.refresh();
    return this.src.pathDocIds(glob);
  }

  /** `exhaustive`: no candidate cut (ranking.ts), for measuring what the cut costs. */
  async search(q: ParsedQuery, filters: Filters, limit: number, exhaustive = false): Promise<LexicalResult> {
    await this.src.refresh();
    if (q.kind === 'empty') return NO_HITS;
    if (q.kind === 'raw') return this.raw(q.raw ?? '', q.words, filters, limit);

    let fts: LexicalResult | null = null;
    if (q.terms.length > 0 || q.phrases.length > 0) {
      const s = this.config.search;
      const terms = await this.lastWordTyped(q, filters);
      const long = terms.filter((t) => !t.prefix).length >= s.feedback_min_terms;
      fts = await rankFts(this.src, this.config, terms, q.phrases, filters, limit, long && s.feedback && s.feedback_terms > 0, exhaustive);
    }
    if (q.cjk.length > 0) {
      const sub = await substringSearch(this.src, q.cjk, filters, limit);
      return fts ? merge(fts, sub, limit) : sub;
    }
    if (fts && fts.total === 0) {
      const stemmed = await this.stemOfHalfWord(q);
      if (stemmed) {
        const again = await rankFts(this.src, this.config, stemmed, q.phrases, filters, limit, false);
        if (again.total > 0) return again;
      }
      // Nothing by whole words: try the words as substrings (identifiers, partial words).
      // As many as a query's substrings may be (query-limits.ts): each is a search of its own.
      const words = q.terms
        .map((t) => t.text)
        .filter((w) => w.length >= 3)
        .slice(0, QUERY_LIMITS.substrings);
      if (words.length > 0) return substringSearch(this.src, words, filters, limit);
    }
    return fts ?? NO_HITS;
  }

  /**
   * While typing, the last word may be finished or not: it counts as a word and as a prefix, so the
   * hits shown after the last keystroke are never worse than those of the finished query. A word the
   * index holds is searched as the finished query searches it (the prefix then re-ranks nothing);
   * letters that are no word of the index yet ("newts turb") find candidates as a prefix beside the
   * other words — unless the prefix is heavy (its tops are kept: thousands of chunks), where it only
   * re-ranks, as FTS5 would score every chunk it begins. A query of that one word is left as it was:
   * the prefix alone finds every continuation.
   */
  private async lastWordTyped(q: ParsedQuery, filters: Filters): Promise<Term[]> {
    const half = q.terms.find((t) => t.prefix);
    if (!half || q.terms.length + q.phrases.length === 1) return q.terms;
    if (await this.src.stats.occurs(half.text)) {
      // As finished: a stopword among other words is no term, a word already typed counts once more.
      const whole: Term = { text: half.text, stem: stem(half.text), prefix: false, count: half.count };
      const same = q.terms.find((o) => o !== half && !o.prefix && o.stem === whole.stem);
      if (same) same.count += half.count;
      return q.terms.flatMap((t) => (t !== half ? [t] : same || isStopword(half.text) ? [] : [whole]));
    }
    if (await this.heavyPrefix(half.text, filters)) return q.terms;
    return q.terms.map((t) => (t === half ? { ...t, drives: true } : t));
  }

  /**
   * Whether a prefix begins words in so many chunks that it only re-ranks, as a common word does: its
   * tops are kept (an index big enough keeps them for every heavy prefix), or — an index too small to
   * keep any — counting its chunks, cheap there, passes the common mark.
   */
  private async heavyPrefix(letters: string, filters: Filters): Promise<boolean> {
    const unit = this.src.prefixUnitOf(letters);
    if (unit && (await this.src.fromTops(unit, filters, 1))) return true;
    const n = this.src.stats.n();
    if (n >= TOPS_INDEX_FACTOR * this.config.search.tops_min_df) return false;
    const common = commonAt(n);
    return (await this.src.fetch(anyOf([{ text: letters, prefix: true }]), filters, common + 1)).length > common;
  }

  /** The words of a query the index does not hold, each with the indexed word most likely meant (spelling.ts). */
  async spelling(q: ParsedQuery): Promise<[string, string][]> {
    await this.src.refresh();
    const stats = this.src.stats;
    return corrections(q, {
      occurs: (w) => stats.occurs(w),
      occurring: (ws) => stats.occurring(ws),
      // A word being typed is no typo while index words begin with it, or it begins with an indexed
      // word and a word written in the text begins with it (typed past its stem: "deploym" for
      // deployment, the index holding "deploy"; "turbidty" begins no written word: a slip, corrected,
      // and said so).
      begins: async (w) => {
        if (await stats.begins(w)) return true;
        for (let k = w.length - 1; k >= Math.max(STEM_MIN, w.length - STEM_MAX_CUT); k--) {
          const beginning = w.slice(0, k);
          if (await stats.occurs(beginning)) return stats.writtenStart(w, beginning);
        }
        return false;
      },
      written: (w) => stats.written(w),
      docFreq: (stems) => stats.docFreq(stems),
    });
  }

  /**
   * The index holds stems. FTS5 stems a prefix too ("conside"* is "consid"*), but a word cut where
   * the stemmer cannot shorten it begins no index term: "correlati"*, the index having "correl" for
   * correlation. The half-typed word is then replaced by the longest indexed stem it begins with
   * (five letters at least, at most five letters short of what was typed), matched as a whole word.
   */
  private async stemOfHalfWord(q: ParsedQuery): Promise<Term[] | null> {
    const half = q.terms.find((t) => t.prefix);
    if (!half || !/^[a-z]+$/.test(half.text)) return null;
    for (let k = half.text.length - 1; k >= Math.max(STEM_MIN, half.text.length - STEM_MAX_CUT); k--) {
      const beginning = half.text.slice(0, k);
      if (stem(beginning) === beginning && (await this.src.stats.occurs(beginning))) {
        return [...q.terms.filter((t) => t !== half), { text: beginning, stem: beginning, prefix: false, count: 1 }];
      }
    }
    return null;
  }

  private async raw(expr: string, typed: string[], filters: Filters, limit: number): Promise<LexicalResult> {
    const match = { raw: expr };
    const cands = await this.src.fetch(match, filters, limit);
    const total = cands.length < limit ? cands.length : await this.src.count(match, filters);
    const words: QueryWord[] = typed.filter((w) => !FTS_OPERATORS.has(w)).map((w) => ({ text: w, form: w, prefix: true, weight: 1 }));
    const texts = await this.src.texts(cands.map((c) => c.rowid));
    const hits = cands.map((c, i) => {
      const t = texts[i]!;
      const a = analyze(words, t.title, t.heading, t.text, false);
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
}
