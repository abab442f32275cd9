// Other spellings of the same letters, as alternatives to what was typed: two neighbouring words
// joined ("roll back", "roll-back" → "rollback") when the index holds the joined word, and a rare word
// split in two ("rollback" → the phrase "roll back") when the index holds both halves as neighbours.
// (The tokenizer already reads "roll-back" as "roll back".) Found and scored, never required.
import { isStopword, stem, type Term } from './query.js';

/** A word is tried as two words only when it is this rare in the index (a few lookups per word). */
const SPLIT_MAX_DF = 20;
/** Halves shorter than this are not words worth trying ("e-mail" is not required to find "email"). */
const SPLIT_MIN_PART = 3;

export interface VariantIndex {
  /** Whether some chunk holds this word, or these words one after the other. */
  occurs(words: string): Promise<boolean>;
  /** Which of these single words some chunk holds (one look-up; the answers are cached for occurs). */
  occurring(words: string[]): Promise<Set<string>>;
  docFreq(stems: string[]): Promise<Map<string, number>>;
}

export async function spellingVariants(terms: Term[], index: VariantIndex): Promise<{ joined: Term[]; split: string[][] }> {
  const joined: Term[] = [];
  const split: string[][] = [];
  const whole = terms.filter((t) => !t.prefix && /^\p{L}+$/u.test(t.text));
  // The words asked about below a batch at a time (the answers are cached): a server answers one
  // question faster than twenty.
  await index.occurring(whole.slice(1).map((t, i) => whole[i]!.text + t.text));
  const df = await index.docFreq(whole.map((t) => t.stem));
  const rare = whole.filter((t) => t.text.length >= 2 * SPLIT_MIN_PART && (df.get(t.stem) ?? 0) <= SPLIT_MAX_DF);
  await index.occurring(rare.flatMap((t) => halves(t.text)).flat());
  for (let i = 0; i + 1 < whole.length; i++) {
    const text = whole[i]!.text + whole[i + 1]!.text;
    const st = stem(text);
    if (!terms.some((t) => t.stem === st) && (await index.occurs(text)))
      joined.push({ text, stem: st, prefix: false, count: 1, alternative: true });
  }
  for (const t of rare) {
    for (const [a, b] of halves(t.text)) {
      if (isStopword(a) || isStopword(b)) continue;
      if ((await index.occurs(a)) && (await index.occurs(b)) && (await index.occurs(`${a} ${b}`))) split.push([a, b]);
    }
  }
  return { joined, split };
}

/** A word's ways of being two words, each half at least SPLIT_MIN_PART letters. */
function halves(word: string): [string, string][] {
  const out: [string, string][] = [];
  for (let k = SPLIT_MIN_PART; k <= word.length - SPLIT_MIN_PART; k++) out.push([word.slice(0, k), word.slice(k)]);
  return out;
}
