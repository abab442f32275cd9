// What the word index knows about its terms, for scoring: how many chunks there are, how many hold a
// term (document frequency), the average length of each field, and whether a word or phrase occurs
// at all. Cached until the chunks change (the engine's writes, or another process's: the chunk
// generation tells).
import { filterInTurns } from '../turns.js';
import type { Config } from '../../shared/config.js';
import type { WordIndex } from '../store/word-index.js';
import { type FieldModel, idf as bm25Idf } from './bm25.js';
import { ftsString, stem } from './query.js';
import type { WordStats } from './word-source.js';

/** Document frequencies are sampled (see docFreq) on indexes of at least this many chunks. */
const DF_SAMPLE_MIN_CHUNKS = 20_000;
const DF_SLICES = 32;
const DF_SAMPLE_ENOUGH = 32;

export class IndexStats implements WordStats {
  private chunkCount: number | null = null;
  private avgFields: [number, number, number] | null = null;
  private rowidRange: { lo: number; hi: number } | null = null;
  private readonly dfCache = new Map<string, number>();
  private readonly occursCache = new Map<string, boolean>();
  /** The chunk generation the caches above belong to; any insert or delete, here or elsewhere, moves it. */
  private generation = -1;

  constructor(
    private readonly index: WordIndex,
    private readonly config: Config,
  ) {}

  /** Drops the caches if chunks changed since they were filled; true when they were dropped. */
  refresh(): boolean {
    const g = this.index.generation();
    if (g === this.generation) return false;
    this.invalidate();
    this.generation = g;
    return true;
  }

  invalidate(): void {
    this.chunkCount = null;
    this.avgFields = null;
    this.rowidRange = null;
    this.dfCache.clear();
    this.occursCache.clear();
  }

  /** Number of chunks, for idf; cached until the engine writes (invalidate). */
  n(): number {
    this.chunkCount ??= this.index.chunkCount();
    return this.chunkCount;
  }

  /** What BM25F needs: field weights, average tokens per chunk in each field (from FTS5's own statistics record), N. */
  fieldModel(): FieldModel {
    if (this.avgFields === null) {
      const record = this.index.statisticsRecord();
      const v = record ? readVarints(record) : [];
      const rows = v[0] ?? 0;
      this.avgFields = this.index.fieldColumns().map((c) => (rows > 0 ? (v[c] ?? 0) / rows : 1)) as [number, number, number];
    }
    const s = this.config.search;
    return { weights: [s.weights.title, s.weights.heading, s.weights.body], avgLength: this.avgFields, n: this.n(), k1: s.k1, b: s.b };
  }

  /**
   * Document frequency of index terms (stems), cached until the next write. fts5vocab counts a term's
   * documents by walking its whole doclist, which costs milliseconds for a common word; so on a big
   * index a term is first counted inside a 1/32 slice of the rowids (FTS5 seeks there), and a term
   * that is common there gets the scaled-up estimate (within a few percent: it only sets weights).
   */
  docFreq(stems: string[]): Promise<Map<string, number>> {
    return Promise.resolve(this.docFreqNow(stems));
  }

  /** docFreq, answered at once (the SQLite index is in this process). */
  docFreqNow(stems: string[]): Map<string, number> {
    const out = new Map<string, number>();
    const big = this.n() >= DF_SAMPLE_MIN_CHUNKS;
    const range = big ? this.rowids() : null;
    for (const stem of stems) {
      let df = this.dfCache.get(stem);
      if (df === undefined) {
        if (range) {
          const inSlice = this.index.countBetween(ftsString(stem), range.lo, range.hi);
          if (inSlice >= DF_SAMPLE_ENOUGH) df = Math.round(inSlice * DF_SLICES);
        }
        df ??= this.index.documentFrequency(stem);
        this.dfCache.set(stem, df);
      }
      if (df > 0) out.set(stem, df);
    }
    return out;
  }

  /** The middle 1/DF_SLICES of the rowid range. */
  private rowids(): { lo: number; hi: number } {
    if (!this.rowidRange) {
      const r = this.index.rowidBounds();
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

  /**
   * Whether some chunk holds this word (or these words, one after the other): the first row of its
   * doclist, a seek, where counting its chunks (fts5vocab) would walk the whole list of a common word.
   */
  /**
   * Whether these letters are written somewhere in the text (the trigram index, case-insensitive): the
   * index holds stems, and this says a word such as "deployment" is one people wrote, not just a
   * string whose stem is held.
   */
  async written(word: string): Promise<boolean> {
    const key = `~${word}`;
    let yes = this.occursCache.get(key);
    if (yes === undefined) {
      yes = this.index.written(word);
      this.occursCache.set(key, yes);
    }
    return yes;
  }

  async writtenStart(letters: string, within: string): Promise<boolean> {
    const key = `~${letters}*${within}`;
    let yes = this.occursCache.get(key);
    if (yes === undefined) {
      yes = this.index.writtenStart(letters, within);
      this.occursCache.set(key, yes);
    }
    return yes;
  }

  /** Whether some index term begins with these letters (a word still being typed): one seek. */
  async begins(prefix: string): Promise<boolean> {
    return this.beginsNow(prefix);
  }

  beginsNow(prefix: string): boolean {
    const key = `${prefix}*`;
    let yes = this.occursCache.get(key);
    if (yes === undefined) {
      // FTS5 stems a prefix as it stems a word ("conside"* is "consid"*): either form may begin a term.
      yes = [prefix, stem(prefix)].some((p) => this.index.termFrom(p)?.startsWith(p) === true);
      this.occursCache.set(key, yes);
    }
    return yes;
  }

  async occurs(words: string): Promise<boolean> {
    return this.occursNow(words);
  }

  /** A correction's candidates are a thousand seeks: looked up in turns (turns.ts). */
  async occurring(words: string[]): Promise<Set<string>> {
    return new Set(await filterInTurns(words, (w) => this.occursNow(w)));
  }

  occursNow(words: string): boolean {
    let yes = this.occursCache.get(words);
    if (yes === undefined) {
      yes = this.index.anyMatch(ftsString(words));
      this.occursCache.set(words, yes);
    }
    return yes;
  }
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
