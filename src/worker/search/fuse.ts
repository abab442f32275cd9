// The stage after retrieval: the hits of words, of meaning, or of both fused (shared/fusions.ts), each
// with how it was found (its ranks and scores, and on request why), ready to be cut to size.
import type { Retrieval, ResolvedSearchParams } from '../../shared/wire.js';
import type { Fusion } from '../../shared/fusions.js';
import { byMeaningAlone } from '../../shared/by-meaning.js';
import { convex, meaningWeight, rrf } from './fusion.js';
import type { LexicalHit, LexicalResult } from './lexical-result.js';

/** A hit before hydration: where it is, how it scored, and what of the query it holds. */
export interface HitIn {
  rowid: number;
  score: number;
  retrieval: Retrieval;
  matched: string[];
  spans: [number, number][];
}

/** A nearest neighbour whose chunk is still there. */
export interface MeaningHit {
  rowid: number;
  chunkId: string;
  similarity: number;
}

/** Hits of words alone (those of `lex` a threshold kept), ranked as they come. */
export function wordHits(hits: LexicalHit[], lex: LexicalResult, explain: boolean): HitIn[] {
  return hits.map((h, i) => ({ ...h, retrieval: wordRetrieval(h, i + 1, lex, explain) }));
}

function wordRetrieval(h: LexicalHit, rank: number, lex: LexicalResult, explain: boolean): Retrieval {
  return {
    method: 'lexical',
    lexical_rank: rank,
    lexical_score: h.score,
    vector_rank: null,
    vector_score: null,
    fusion_score: null,
    ...(explain
      ? {
          explain: {
            lexical_share: 1,
            vector_share: null,
            bm25_raw: h.bm25,
            coverage: h.coverage,
            proximity: h.proximity,
            feedback: h.feedback,
            fts_query: lex.ftsQuery ?? `substring: ${h.matched.join(', ')}`,
          },
        }
      : {}),
  };
}

/** Hits of meaning alone, by similarity. */
export function meaningHits(vec: MeaningHit[]): HitIn[] {
  return vec.map((v, i) => ({
    rowid: v.rowid,
    score: v.similarity,
    matched: [],
    spans: [],
    retrieval: {
      method: 'vector',
      lexical_rank: null,
      lexical_score: null,
      vector_rank: i + 1,
      vector_score: v.similarity,
      fusion_score: null,
    },
  }));
}

/**
 * Both lists fused: by Reciprocal Rank Fusion, or by a convex sum of normalised scores. A hit both
 * found takes its words (for the snippet) from the lexical side. `chunkIdOf`: the lexical hits' chunk
 * ids, which break ties.
 */
export function fusedHits(
  p: Pick<ResolvedSearchParams, 'explain'> & { fusion: Fusion },
  lex: LexicalResult | null,
  vec: MeaningHit[],
  chunkIdOf: ReadonlyMap<number, string>,
  tuning: { rrfK: number; convexAlpha: number; meaningGap: number },
): HitIn[] {
  const lexHits = lex?.hits ?? [];
  const byLexRow = new Map(lexHits.map((h) => [h.rowid, h]));
  const simByRow = new Map(vec.map((v) => [v.rowid, v.similarity]));
  const lexRanked = lexHits.map((h) => ({ rowid: h.rowid, chunkId: chunkIdOf.get(h.rowid) ?? '', score: h.score }));
  const vecRanked = vec.map((v) => ({ rowid: v.rowid, chunkId: v.chunkId, score: v.similarity }));
  const fused =
    p.fusion === 'convex'
      ? convex(lexRanked, vecRanked, tuning.convexAlpha)
      : rrf(
          lexRanked,
          vecRanked,
          tuning.rrfK,
          p.fusion === 'adaptive'
            ? meaningWeight(
                vecRanked.map((v) => v.score),
                tuning.meaningGap,
              )
            : 1,
        );
  return fused.map((f) => {
    const l = byLexRow.get(f.rowid);
    return {
      rowid: f.rowid,
      score: f.fused,
      matched: l?.matched ?? [],
      spans: l?.spans ?? [],
      retrieval: {
        method: 'hybrid',
        lexical_rank: f.lexicalRank,
        lexical_score: l?.score ?? null,
        vector_rank: f.vectorRank,
        vector_score: simByRow.get(f.rowid) ?? null,
        fusion_score: f.fused,
        ...(p.explain
          ? {
              explain: {
                lexical_share: f.lexicalShare,
                vector_share: f.vectorShare,
                bm25_raw: l?.bm25 ?? null,
                coverage: l?.coverage ?? null,
                proximity: l?.proximity ?? null,
                feedback: l?.feedback ?? null,
                fts_query: lex?.ftsQuery ?? null,
              },
            }
          : {}),
      },
    };
  });
}

/**
 * With no hit holding the words, a hit meaning alone found is shown from this share of the model's
 * "similar" on: the gate's value was set on questions, and a word or two sits lower. With
 * all-MiniLM-L6-v2 (0.43) on an outsider's 16 everyday notes, "unwinding" found its evening-routine
 * note at 0.256, "wifi" the Wi-Fi note at 0.506; "volcano" came nearest at 0.165, "xyzzyq" at 0.097.
 */
const WORDLESS_SHARE = 0.5;

/**
 * Of a hybrid list, the hits meaning alone found that are near enough to show. RRF ranks every
 * candidate of the vector half, so a list where three passages held the words went on with seven
 * unrelated notes "found by meaning", and "volcano" listed five notes at a cosine of 0.02–0.17 (an
 * outsider's findings). Beside hits that hold the words, one is kept only as near the query as the
 * model's own "similar" begins (its calibrated gate value, embed/registry.ts); with none that holds
 * the words, also those within `gap` of the nearest, but none below WORDLESS_SHARE of "similar".
 * A model without a calibrated value keeps them all.
 */
export function nearEnoughByMeaning(items: HitIn[], floor: number | undefined, gap: number): HitIn[] {
  if (floor === undefined) return items;
  const sim = (h: HitIn): number => h.retrieval.vector_score ?? -1;
  const withWords = items.some((h) => !byMeaningAlone(h));
  const nearest = Math.max(-1, ...items.map(sim));
  const least = withWords ? floor : Math.max(WORDLESS_SHARE * floor, Math.min(floor, nearest - gap));
  return items.filter((h) => !byMeaningAlone(h) || sim(h) >= least);
}
