// The stages of a search, each on its own: the request, the hits of words, of meaning and both fused,
// and the envelope. (Retrieval, names and hydration run against a real index in search.test.ts.)
import { describe, expect, it } from 'vitest';
import { SearchParamsSchema, type SearchHit } from '../src/shared/wire.js';
import { envelope, type Halves } from '../src/worker/search/envelope.js';
import { fusedHits, meaningHits, wordHits } from '../src/worker/search/fuse.js';
import { meaningWeight } from '../src/worker/search/fusion.js';
import type { LexicalHit, LexicalResult } from '../src/worker/search/lexical-result.js';
import { searchRequest } from '../src/worker/search/request.js';

const params = (extra: Record<string, unknown> = {}) => SearchParamsSchema.parse({ query: 'install git', ...extra });
const word = (rowid: number, score: number, matched: string[] = ['git']): LexicalHit => ({
  rowid,
  score,
  bm25: -score,
  coverage: 1,
  proximity: null,
  feedback: null,
  matched,
  spans: [[0, 3]],
});
const lexical = (hits: LexicalHit[], total = hits.length, totalEstimated = false): LexicalResult => ({
  hits,
  total,
  totalEstimated,
  ftsQuery: 'git',
  strategy: 'fts',
});

describe('the request', () => {
  it('parses the query with the prefix flag and folds the tags to lower case', () => {
    const r = searchRequest(params({ query: 'instal', prefix: true, tags: ['Work', 'LINUX'], type: 'markdown' }));
    expect(r.filters).toEqual({ tags: ['work', 'linux'], type: 'markdown', path: undefined, lang: undefined });
    expect(r.q.kind).toBe('terms');
    expect(JSON.stringify(r.q)).toContain('"prefix":true');
  });
});

describe('the hits of words, of meaning, and both fused', () => {
  it('ranks the hits of words as they come, explaining only when asked', () => {
    const lex = lexical([word(7, 0.9), word(3, 0.5)]);
    const plain = wordHits(lex.hits, lex, false);
    expect(plain.map((h) => [h.rowid, h.retrieval.lexical_rank])).toEqual([
      [7, 1],
      [3, 2],
    ]);
    expect(plain[0]!.retrieval.explain).toBeUndefined();
    expect(wordHits(lex.hits, lex, true)[0]!.retrieval.explain).toMatchObject({ lexical_share: 1, fts_query: 'git', bm25_raw: -0.9 });
  });

  it('ranks the hits of meaning by similarity', () => {
    expect(
      meaningHits([{ rowid: 4, chunkId: 'c4', similarity: 0.8 }]).map((h) => [
        h.rowid,
        h.retrieval.method,
        h.retrieval.vector_rank,
        h.score,
      ]),
    ).toEqual([[4, 'vector', 1, 0.8]]);
  });

  it('fuses by Reciprocal Rank Fusion: 1/(k + rank) summed; a hit both found keeps its words', () => {
    const lex = lexical([word(1, 0.9), word(2, 0.8)]);
    const vec = [
      { rowid: 2, chunkId: 'b', similarity: 0.7 },
      { rowid: 3, chunkId: 'c', similarity: 0.6 },
    ];
    const ids = new Map([
      [1, 'a'],
      [2, 'b'],
    ]);
    const fused = fusedHits({ fusion: 'rrf', explain: false }, lex, vec, ids, { rrfK: 60, convexAlpha: 0.5, meaningGap: 0.15 });
    expect(fused.map((h) => h.rowid)).toEqual([2, 1, 3]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0]!.retrieval).toMatchObject({ method: 'hybrid', lexical_rank: 2, vector_rank: 1, vector_score: 0.7 });
    expect(fused[0]!.matched).toEqual(['git']);
    expect(fused[2]!.matched).toEqual([]);
    const convex = fusedHits({ fusion: 'convex', explain: true }, lex, vec, ids, { rrfK: 60, convexAlpha: 1, meaningGap: 0.15 });
    // α = 1: the words' scores alone decide.
    expect(convex[0]!.rowid).toBe(1);
    expect(convex[0]!.retrieval.explain).toMatchObject({ fts_query: 'git' });
  });
});

describe('adaptive fusion', () => {
  it('weighs the meaning half by how far its best neighbour stands above its tenth, from a quarter to one', () => {
    const sims = (gap: number): number[] => Array.from({ length: 30 }, (_, i) => 0.6 - (i < 10 ? (gap * i) / 9 : gap + 0.001 * i));
    expect(meaningWeight(sims(0.3), 0.15)).toBe(1);
    expect(meaningWeight(sims(0.15), 0.15)).toBeCloseTo(1, 9);
    expect(meaningWeight(sims(0.075), 0.15)).toBeCloseTo(0.5, 9);
    expect(meaningWeight(sims(0.01), 0.15)).toBe(0.25);
    expect(meaningWeight([0.5], 0.15)).toBe(1);
    expect(meaningWeight([0.5, 0.2], 0.15)).toBe(1); // a short list: its last stands in for the tenth
  });

  it('lets the words lead when the meaning half has no clear answer, and not when it has', () => {
    const lex = lexical([word(1, 0.9)]);
    const ids = new Map([[1, 'a']]);
    const neighbours = (gap: number) =>
      Array.from({ length: 12 }, (_, i) => ({ rowid: 10 + i, chunkId: `v${i}`, similarity: 0.5 - (gap * Math.min(i, 9)) / 9 }));
    const tuning = { rrfK: 60, convexAlpha: 0.5, meaningGap: 0.15 };
    // Both lists' first: a tie under rrf, broken for the words; a flat neighbour list weighs less.
    const flat = fusedHits({ fusion: 'adaptive', explain: true }, lex, neighbours(0.01), ids, tuning);
    expect(flat[0]!.rowid).toBe(1);
    expect(flat[1]!.retrieval.explain!.vector_share).toBeCloseTo(0.25 / 61, 12);
    const clear = fusedHits({ fusion: 'adaptive', explain: true }, lex, neighbours(0.3), ids, tuning);
    expect(clear[1]!.retrieval.explain!.vector_share).toBeCloseTo(1 / 61, 12);
    const plain = fusedHits({ fusion: 'rrf', explain: true }, lex, neighbours(0.01), ids, tuning);
    expect(plain[1]!.retrieval.explain!.vector_share).toBeCloseTo(1 / 61, 12);
  });
});

describe('the envelope', () => {
  /** The envelope of a search with these params, its query parsed as the search parses it. */
  const envelopeOf = (p: ReturnType<typeof params>, ...rest: [SearchHit[], Halves, number]) => envelope(p, searchRequest(p).q, ...rest);
  const hit = (byName = false) => ({ retrieval: { by_name: byName } }) as unknown as SearchHit;

  it('says why a search by meaning found nothing when meaning is not there', () => {
    const r = envelopeOf(params({ mode: 'vector' }), [], { words: null, meaning: { unavailable: 'no model' } }, performance.now());
    expect(r).toMatchObject({ results: [], total_matches: 0, returned: 0, vector: { status: 'unavailable', reason: 'no model' } });
    expect(r).not.toHaveProperty('lexical');
    expect(r).not.toHaveProperty('total_matches_estimated');
  });

  it('counts passages and documents found only by name; by words alone the total is counted, not estimated', () => {
    const r = envelopeOf(
      params({ mode: 'hybrid' }),
      [hit(), hit(true)],
      { words: { total: 40, estimated: false }, meaning: { unavailable: 'no model' } },
      performance.now(),
    );
    expect(r).toMatchObject({ total_matches: 41, returned: 2, lexical: { status: 'ok' }, vector: { status: 'unavailable' } });
    expect(r).not.toHaveProperty('total_matches_estimated');
    const lexicalOnly = envelopeOf(
      params({ mode: 'lexical' }),
      [hit()],
      { words: { total: 9, estimated: true }, meaning: null },
      performance.now(),
    );
    expect(lexicalOnly).toMatchObject({ total_matches: 9, total_matches_estimated: true });
    expect(lexicalOnly).not.toHaveProperty('vector');
  });

  it('adds what only meaning found to the total, an estimate', () => {
    const r = envelopeOf(params(), [hit()], { words: { total: 5, estimated: false }, meaning: { only: 3 } }, performance.now());
    expect(r).toMatchObject({ total_matches: 8, total_matches_estimated: true, lexical: { status: 'ok' }, vector: { status: 'ok' } });
  });
});
