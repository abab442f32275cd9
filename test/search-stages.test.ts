// The stages of a search, each on its own: the request, the hits of words, of meaning and both fused,
// and the envelope. (Retrieval, names and hydration run against a real index in search.test.ts.)
import { describe, expect, it } from 'vitest';
import { SearchParamsSchema, type SearchHit } from '../src/shared/wire.js';
import { envelope, type Halves } from '../src/worker/search/envelope.js';
import { fusedHits, meaningHits, wordHits } from '../src/worker/search/fuse.js';
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
    const fused = fusedHits({ fusion: 'rrf', explain: false }, lex, vec, ids, { rrfK: 60, convexAlpha: 0.5 });
    expect(fused.map((h) => h.rowid)).toEqual([2, 1, 3]);
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61, 12);
    expect(fused[0]!.retrieval).toMatchObject({ method: 'hybrid', lexical_rank: 2, vector_rank: 1, vector_score: 0.7 });
    expect(fused[0]!.matched).toEqual(['git']);
    expect(fused[2]!.matched).toEqual([]);
    const convex = fusedHits({ fusion: 'convex', explain: true }, lex, vec, ids, { rrfK: 60, convexAlpha: 1 });
    // α = 1: the words' scores alone decide.
    expect(convex[0]!.rowid).toBe(1);
    expect(convex[0]!.retrieval.explain).toMatchObject({ fts_query: 'git' });
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
