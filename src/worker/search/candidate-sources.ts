// The candidate lists a whole-word query's drivers and common words bring (ranking.ts scores them):
// each heavy driver's tops standing for its chunks, the chunks holding two drivers, and those a
// common word adds where leaving it out could cost a hit.
import type { Filters } from '../store/doc-filter.js';
import type { Term } from './query.js';
import { wordUnit } from './tops.js';
import { allOf, anyOf, type Candidate, type Match, type WordSource, type WordStats } from './word-source.js';

/** Drivers up to which each brings its own candidates and every pair of them theirs (six pairs). */
const SPLIT_MAX = 4;

/** The chunks holding two or more of the words: every pair's AND. */
export function atLeastTwo(words: Term[]): Match {
  const pairs: Match[] = [];
  for (let i = 0; i < words.length; i++) for (let j = i + 1; j < words.length; j++) pairs.push(allOf([words[i]!, words[j]!]));
  return { or: pairs };
}

/** Each chunk once, in the order first met. */
export function union(lists: Candidate[][]): Candidate[] {
  const seen = new Set<number>();
  return lists.flat().filter((c) => !seen.has(c.rowid) && (seen.add(c.rowid), true));
}

/**
 * Several whole words driving, one or more of them heavy: FTS5 would score every chunk any of them
 * is in (a word in 5,000 chunks is 5 ms of it). A chunk holding one driver alone ranks among the
 * others holding it alone by that word's saturation — the idf, coverage and the words it lacks are
 * the same for all of them — which is the order its kept tops hold (tops.ts). So each heavy word's
 * tops stand for its chunks, a light word's chunks come from FTS5 as before, and the chunks holding
 * two drivers or more (where the sum decides) from FTS5's AND of every pair. Null where the split
 * saves nothing (no driver has current tops) or the pairs would be many (long questions).
 */
export async function splitSources(
  src: WordSource,
  stats: WordStats,
  filters: Filters,
  drivers: Term[],
  df: Map<string, number>,
  asked: number,
): Promise<Candidate[][] | null> {
  if (drivers.length < 2 || drivers.length > SPLIT_MAX || drivers.some((t) => t.prefix)) return null;
  const tops = await Promise.all(drivers.map((t) => src.fromTops(wordUnit(t.stem), filters, asked)));
  if (tops.every((t) => t === null)) return null;
  const own = await Promise.all(
    drivers.map(async (t, i) => {
      const top = tops[i];
      if (!top) return src.fetch(anyOf([t]), filters, asked);
      const idf = stats.idf(df.get(t.stem) ?? top.matches);
      return top.rowids.map((rowid, k) => ({ rowid, raw: -top.scores[k]! * idf }));
    }),
  );
  return [...own, await src.fetch(atLeastTwo(drivers), filters, asked)];
}

/**
 * The candidates the common (deferred) words bring, where leaving them out could cost a hit. The
 * chunks holding a driver and a common word too: the common word adds to their score, which FTS5's
 * order of the drivers alone does not see — always when every word is common (the rarest drives,
 * blind to the others), otherwise while the common words' lists are short enough to walk cheaply
 * (BOTH_POSTINGS; at a million passages a common word's list is a 2 ms walk on most searches, and
 * the drivers' own candidates are deepened instead). When the drivers found fewer chunks than the
 * page holds: the chunks holding every common word, and those holding one — from its kept tops
 * where they are current — to fill it. Only for whole words: a half-typed driver keeps FTS5's own
 * score, which another query's is not comparable with.
 */
export async function deferredSources(
  src: WordSource,
  filters: Filters,
  q: { drivers: Term[]; deferred: Term[]; both: boolean; fetched: number; limit: number; asked: number },
): Promise<Candidate[][]> {
  if (q.deferred.length === 0 || q.drivers.length === 0 || q.drivers.some((t) => t.prefix)) return [];
  const out: Candidate[][] = [];
  if (q.both) out.push(await src.fetch({ and: [anyOf(q.drivers), anyOf(q.deferred)] }, filters, q.asked));
  if (q.fetched < q.limit) {
    if (q.deferred.length > 1) out.push(await src.fetch(allOf(q.deferred), filters, q.asked));
    for (const t of q.deferred) {
      const tops = await src.fromTops(wordUnit(t.stem), filters, q.limit);
      out.push(tops ? tops.rowids.map((rowid) => ({ rowid, raw: 0 })) : await src.fetch(anyOf([t]), filters, q.asked));
    }
  }
  return out;
}
