// Which hits meaning alone found a hybrid list shows (search/fuse.ts nearEnoughByMeaning), checked on
// random lists against the rule it states.
import { describe, expect, it } from 'vitest';
import type { HitIn } from '../src/worker/search/fuse.js';
import { nearEnoughByMeaning } from '../src/worker/search/fuse.js';
import { Rng } from '../bench/corpus.js';

function hit(rowid: number, lexicalRank: number | null, similarity: number | null): HitIn {
  return {
    rowid,
    score: 1 / (rowid + 1),
    matched: lexicalRank === null ? [] : ['w'],
    spans: [],
    retrieval: {
      method: 'hybrid',
      lexical_rank: lexicalRank,
      lexical_score: lexicalRank === null ? null : 1,
      vector_rank: similarity === null ? null : 1,
      vector_score: similarity,
      fusion_score: 1,
    },
  };
}

describe('hits meaning alone found, in a hybrid list', () => {
  it('beside hits that hold the words, only those as near as the model calls similar; without, also those near the nearest, from half of similar', () => {
    const rng = new Rng(11);
    for (let round = 0; round < 500; round++) {
      const n = 1 + rng.int(12);
      const items = Array.from({ length: n }, (_, i) => {
        const words = rng.int(3) === 0;
        return hit(i, words ? i + 1 : null, words && rng.int(2) === 0 ? null : rng.int(1000) / 1000);
      });
      const floor = 0.3 + rng.int(30) / 100;
      const gap = 0.15;
      const kept = nearEnoughByMeaning(items, floor, gap);
      const withWords = items.some((h) => h.retrieval.lexical_rank !== null);
      const nearest = Math.max(-1, ...items.map((h) => h.retrieval.vector_score ?? -1));
      // Order kept; every hit that holds the words kept.
      expect(kept.map((h) => h.rowid)).toEqual(items.filter((h) => kept.includes(h)).map((h) => h.rowid));
      for (const h of items) {
        const sim = h.retrieval.vector_score ?? -1;
        const shown = kept.includes(h);
        if (h.retrieval.lexical_rank !== null) expect(shown).toBe(true);
        else if (withWords) expect(shown).toBe(sim >= floor);
        else expect(shown).toBe(sim >= floor || (sim >= nearest - gap && sim >= floor / 2));
      }
      // A model with no calibrated "similar" keeps everything.
      expect(nearEnoughByMeaning(items, undefined, gap)).toEqual(items);
    }
  });
});
