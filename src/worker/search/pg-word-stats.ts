// The PostgreSQL word source's statistics (pg-word-source.ts): N, the fields' averages and each
// word's document frequency from word_stats, counted over every collection (docs/security.md,
// "Decided"); whether a word is held, asked of the passages a team's user may read.
import { asEngine, currentActor, currentPathView } from '../acting.js';
import type { Config } from '../../shared/config.js';
import { type PgTotals, type PgWordIndex } from '../store/postgres/word-index.js';
import { tsquery } from '../store/postgres/tsquery.js';
import { indexForm, WORD_TOKEN } from '../words.js';
import { type FieldModel, idf as bm25Idf } from './bm25.js';
import { phraseOf } from './pg-match.js';
import type { WordStats } from './word-source.js';

export class PgWordStats implements WordStats {
  totals: PgTotals = { n: 0, avg: [1, 1, 1], generation: -1 };
  readonly dfCache = new Map<string, number>();
  /** Answers about a user's passages, until the chunks' generation moves (a write, or a grant changed: migration 17). */
  readonly seen = new Map<string, boolean>();
  /** The collections holding documents (word-index.ts filedIn), this generation. */
  filed: Promise<{ names: string[]; unfiled: boolean }> | null = null;

  constructor(
    private readonly index: PgWordIndex,
    private readonly config: Config,
    /** Whether a heavy word's kept tops hold a chunk the session's user may read (false: they cannot say). */
    private readonly readableTop: (stem: string) => Promise<boolean> = async () => false,
  ) {}

  n(): number {
    return this.totals.n;
  }
  idf(df: number): number {
    return bm25Idf(this.totals.n, df);
  }
  fieldModel(): FieldModel {
    const s = this.config.search;
    return {
      weights: [s.weights.title, s.weights.heading, s.weights.body],
      avgLength: this.totals.avg,
      n: this.totals.n,
      k1: s.k1,
      b: s.b,
    };
  }
  async docFreq(stems: string[]): Promise<Map<string, number>> {
    const missing = [...new Set(stems.filter((s) => !this.dfCache.has(s)))];
    if (missing.length > 0) {
      const got = await this.index.docFreq(missing);
      for (const s of missing) this.dfCache.set(s, got.get(s) ?? 0);
    }
    const out = new Map<string, number>();
    for (const s of stems) if ((this.dfCache.get(s) ?? 0) > 0) out.set(s, this.dfCache.get(s)!);
    return out;
  }
  /**
   * The word statistics count every collection. For a team's user, whether a word is held — which
   * decides whether it is corrected, or still being typed — is asked of the passages they may read
   * (row-level security): a word only others' documents hold is no word for them (issue 50: left
   * uncorrected, it told a reader that it existed). Each answer is kept per user (cached()).
   */
  async occurs(words: string): Promise<boolean> {
    const parts = [...words.matchAll(WORD_TOKEN)].map((m) => m[0]);
    if (parts.length !== 1) return this.cached(`"${words}"`, () => this.index.anyMatch(tsquery({ either: [phraseOf(parts)] })));
    const stem = indexForm(parts[0]!).stem;
    if ((await this.docFreq([stem])).size === 0) return false;
    if (await this.everything()) return true;
    // A heavy word first: the best chunks its tops keep, checked under the policies by their rowids, are
    // a few key look-ups; asking the word index reads every chunk holding it under the policies (2.5 of
    // a reader's 11 ms of statements per search at 13,000 passages, growing with the index).
    return this.cached(
      `=${stem}`,
      async () => (await this.readableTop(stem)) || this.index.anyMatch(tsquery({ either: [{ form: stem, prefix: false }] })),
    );
  }
  /**
   * Whether the session's user may read every passage (the owner, an admin, or a user granted every
   * collection that holds any): then the statistics are theirs, and no word need be asked again. Each
   * such question cost a team's reader 5–15 ms a word, most of a pasted page's search.
   */
  private async everything(): Promise<boolean> {
    if (currentActor() === undefined) return true;
    const view = currentPathView();
    // A team's admin (no view of their own): counted under row-level security.
    if (!view) return this.cached('\u0001every chunk', () => this.index.seesEveryChunk());
    // A reader or editor: every collection holding a document is one they may read (one question per
    // generation for everyone, not a count of the chunks per user).
    if (!this.filed) {
      const filed = asEngine(() => this.index.filedIn());
      this.filed = filed;
      filed.catch(() => (this.filed = null));
    }
    const f = await this.filed;
    const readable = new Set(view.places.map((p) => p.name));
    return !f.unfiled && f.names.every((n) => readable.has(n));
  }
  /** One query for all of them (the statistics); for a team's user, those held asked again as occurs() does. */
  async occurring(words: string[]): Promise<Set<string>> {
    const stems = new Map(words.map((w) => [w, indexForm(w).stem]));
    const df = await this.docFreq([...new Set(stems.values())]);
    const held = words.filter((w) => df.has(stems.get(w)!));
    if (await this.everything()) return new Set(held);
    const seen = await Promise.all(held.map((w) => this.occurs(w)));
    return new Set(held.filter((_, i) => seen[i]));
  }
  async begins(prefix: string): Promise<boolean> {
    const f = indexForm(prefix);
    return this.cached(`${prefix}*`, async () => {
      const held = (await this.index.begins(f.folded)) || (await this.index.begins(f.stem));
      if (!held || (await this.everything())) return held;
      return this.index.anyMatch(
        tsquery({
          either: [
            { form: f.folded, prefix: true },
            { form: f.stem, prefix: true },
          ],
        }),
      );
    });
  }
  async written(word: string): Promise<boolean> {
    return this.cached(`~${word}`, () => this.index.writtenAs(tsquery({ either: [{ form: indexForm(word).stem, prefix: false }] }), word));
  }
  async writtenStart(letters: string, within: string): Promise<boolean> {
    return this.cached(`~${letters}*${within}`, () =>
      this.index.writtenAs(tsquery({ either: [{ form: indexForm(within).stem, prefix: false }] }), letters, false),
    );
  }
  /** Answers about the passages a user may read, kept per user (acting.ts). */
  private async cached(question: string, ask: () => Promise<boolean>): Promise<boolean> {
    const key = `${currentActor() ?? ''}\u0000${question}`;
    let yes = this.seen.get(key);
    if (yes === undefined) {
      yes = await ask();
      if (this.seen.size > 20_000) this.seen.clear();
      this.seen.set(key, yes);
    }
    return yes;
  }
}
