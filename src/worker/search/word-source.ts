// What the ranking (ranking.ts, lexical.ts) asks of a word index, whichever store holds it: SQLite's
// FTS5 (candidates.ts) or PostgreSQL's tsvectors (pg-word-source.ts). A search is described as a
// Match — words as typed, phrases, AND and OR — and each store writes it in its own query language.
import type { Filters } from '../store/doc-filter.js';
import type { Candidate, ChunkText } from '../store/rows.js';
import type { FieldModel } from './bm25.js';
import type { FromTops } from './tops-reader.js';

export type { Candidate, ChunkText, FromTops };

/** A word of a match as typed (lowercased); a store matches it as its index holds it (stemmed, or as a prefix). */
export interface MatchWord {
  text: string;
  prefix: boolean;
}

export type Match =
  /** Any (OR) or every (AND) of these words and phrases. */
  | { words: MatchWord[]; phrases: string[][]; join: 'OR' | 'AND' }
  | { and: Match[] }
  | { or: Match[] }
  /** An expression in the store's own query language, as the person typed it between single quotes. */
  | { raw: string };

/** Any of the words and phrases: bm25 ranks chunks that match more (and rarer) of them higher. */
export function anyOf(words: MatchWord[], phrases: string[][] = []): Match {
  return { words, phrases, join: 'OR' };
}

export function allOf(words: MatchWord[]): Match {
  return { words, phrases: [], join: 'AND' };
}

/**
 * What the index knows about its words. The counts are read in `WordSource.refresh()`; n, idf and the
 * field model answer from them, the rest may ask the store.
 */
export interface WordStats {
  /** Chunks in the index. */
  n(): number;
  /** BM25's idf of a word in `df` chunks. */
  idf(df: number): number;
  /** Field weights, average field lengths, N, k1, b. */
  fieldModel(): FieldModel;
  /** How many chunks hold each stem (absent: none). */
  docFreq(stems: string[]): Promise<Map<string, number>>;
  /** Whether some chunk holds this word, or these words one after the other. */
  occurs(words: string): Promise<boolean>;
  /** Which of these single words some chunk holds: occurs() for many at once (a typo's candidates). */
  occurring(words: string[]): Promise<Set<string>>;
  /** Whether some index word begins with these letters (a word still being typed). */
  begins(prefix: string): Promise<boolean>;
  /** Whether these letters are written somewhere in the text as they stand (not only their stem). */
  written(word: string): Promise<boolean>;
  /**
   * Whether a word written in the text begins with these letters, among the chunks holding `within`
   * (an indexed word they begin with): "correlati" is the start of a written "correlation", "turbidty"
   * the start of nothing anyone wrote.
   */
  writtenStart(letters: string, within: string): Promise<boolean>;
}

export interface WordSource {
  readonly stats: WordStats;
  /**
   * What scoring a chunk a search matches costs this store's word index, against FTS5's: units are
   * heavy that many times sooner (their tops kept: search.tops_min_df is FTS5's), and counting every
   * match or fetching a second list of candidates stops that much sooner.
   */
  readonly scoringCost: number;
  /**
   * Whether a word no chunk is counted under is held by none: PostgreSQL counts the stems kb itself
   * writes (word_stats); FTS5 folds a query's accents itself, so "café" matches chunks counted as "cafe".
   */
  readonly countsEveryForm: boolean;
  /**
   * Brings the statistics up to date with the chunks (this process's writes, or another's); true
   * when they had changed. Called first by every search.
   */
  refresh(): Promise<boolean>;
  /** The chunks changed here: read the statistics again. */
  invalidate(): void;
  /** The best `limit` chunks a match finds under the filters, best first by the store's own score. */
  fetch(m: Match, filters: Filters, limit: number): Promise<Candidate[]>;
  /** How many chunks a match finds under the filters. */
  count(m: Match, filters: Filters): Promise<number>;
  /** Title, heading and text of many chunks, in the order asked. */
  texts(rowids: number[]): Promise<ChunkText[]>;
  /**
   * Whether a prefix's tops (tops.ts) hold the chunks with a stem that begins so: PostgreSQL's
   * match of a half-typed word is by the stems kb writes (pg-match.ts); FTS5's by its own terms.
   */
  readonly prefixesByStem: boolean;
  /** The tops unit (tops.ts) holding exactly the chunks a half-typed word finds; null where no one unit does. */
  prefixUnitOf(letters: string): string | null;
  /** A unit's kept best chunks (tops.ts), or null where the store keeps none (then: fetch). */
  fromTops(unit: string, filters: Filters, depth: number): Promise<FromTops | null>;
  /** The share of chunks that pass the filters (the most selective one), for estimates. */
  filterShare(filters: Filters): Promise<number>;
  /** Ids of the indexed documents whose path matches a glob. */
  pathDocIds(glob: string): Promise<string[]>;
  /** The chunks whose text holds these letters (CJK, inside identifiers), under the filters. */
  substring(letters: string, filters: Filters): Promise<number[]>;
  /** The match as this store's query language writes it (Explain shows it). */
  show(m: Match): string;
}
