// The refusal gate: before any model is called, is there evidence in the documents at all? A question
// is refused when the best passage holds too little of the question's content words (idf-weighted
// coverage, from the lexical side of the search) AND its word evidence is weak (BM25 in units of one
// rare word matched once). Either one is enough to go on: a short question whose words a passage holds
// all of, or a long one a passage answers with many of its rarer words. Calibrated on Cranfield
// against off-topic questions: npm run bench -- ask.
// With an embedding model bound, meaning can be a third way in: a passage whose vector is at least
// min_similarity (cosine) from the question's. Where "similar" begins differs from one model family to
// another, so the value is the model's own, measured with its real weights (embed/registry.ts's
// gateSimilarity, from npm run bench -- ask); for a model without one it is off unless set.
import type { Config } from '../../shared/config.js';
import type { SearchHit, SearchResult } from '../../shared/wire.js';
import { similarFrom } from '../embed/registry.js';
import { embeddingRef } from '../embed/spec.js';

export interface GateThresholds {
  min_coverage: number;
  min_strength: number;
  min_similarity?: number | undefined;
}

/** The thresholds in force: the config's, and the embedding model's own similarity when the config sets none. */
export function thresholdsFor(config: Pick<Config, 'ask' | 'embedding'>): GateThresholds {
  return { ...config.ask.gate, min_similarity: similarFrom(config, embeddingRef(config.embedding)) };
}

export interface GateVerdict {
  refuse: boolean;
  /** Highest idf-weighted share of the question's words that one passage holds, 0..1. */
  coverage: number;
  /** Highest BM25 of one passage, in rare-word units. */
  strength: number;
  /** Highest cosine similarity of one passage to the question; null without vectors. */
  similarity: number | null;
}

export function gate(found: SearchResult, unit: number, t: GateThresholds): GateVerdict {
  let coverage = 0;
  let strength = 0;
  let similarity: number | null = null;
  for (const h of found.results) {
    if (h.retrieval.vector_score !== null) similarity = Math.max(similarity ?? -1, h.retrieval.vector_score);
    const e = h.retrieval.explain;
    if (!e) continue;
    // A one-word question has no coverage figure: a passage that holds the word covers all of it.
    coverage = Math.max(coverage, e.coverage ?? (h.matched_terms.length > 0 ? 1 : 0));
    if (e.bm25_raw !== null) strength = Math.max(strength, Math.abs(e.bm25_raw) / Math.max(unit, 1e-9));
  }
  const byMeaning = t.min_similarity !== undefined && similarity !== null && similarity >= t.min_similarity;
  return { refuse: coverage < t.min_coverage && strength < t.min_strength && !byMeaning, coverage, strength, similarity };
}

/**
 * A passage worth showing when no answer is written (refused, or no model reached): it holds some of
 * the question's words, or comes as near it by meaning as the gate asks. A hybrid search always finds
 * something; the rest of what it found is unrelated to the question.
 */
export function nearEnough(h: SearchHit, t: GateThresholds): boolean {
  return h.matched_terms.length > 0 || (t.min_similarity !== undefined && (h.retrieval.vector_score ?? -1) >= t.min_similarity);
}
