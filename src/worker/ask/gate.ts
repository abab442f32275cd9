// The refusal gate: before any model is called, is there evidence in the documents at all? A question
// is refused when the best passage holds too little of the question's content words (idf-weighted
// coverage, from the lexical side of the search) AND its word evidence is weak (BM25 in units of one
// rare word matched once). Either one is enough to go on: a short question whose words a passage holds
// all of, or a long one a passage answers with many of its rarer words. Calibrated on Cranfield
// against off-topic questions: npm run bench -- ask.
import type { SearchResult } from '../../shared/wire.js';

export interface GateThresholds {
  min_coverage: number;
  min_strength: number;
}

export interface GateVerdict {
  refuse: boolean;
  /** Highest idf-weighted share of the question's words that one passage holds, 0..1. */
  coverage: number;
  /** Highest BM25 of one passage, in rare-word units. */
  strength: number;
}

export function gate(found: SearchResult, unit: number, t: GateThresholds): GateVerdict {
  let coverage = 0;
  let strength = 0;
  for (const h of found.results) {
    const e = h.retrieval.explain;
    if (!e) continue;
    // A one-word question has no coverage figure: a passage that holds the word covers all of it.
    coverage = Math.max(coverage, e.coverage ?? (h.matched_terms.length > 0 ? 1 : 0));
    if (e.bm25_raw !== null) strength = Math.max(strength, Math.abs(e.bm25_raw) / Math.max(unit, 1e-9));
  }
  return { refuse: coverage < t.min_coverage && strength < t.min_strength, coverage, strength };
}
