// Which hits only the meaning half found, as the engine counts them and the CLI and the app mark them.
// Plain TypeScript over the contract's types: the renderer takes it too (no zod in its bundle).
import type { SearchHit, SearchResult } from './wire.js';

/** A hit the meaning half alone found: none of the query's words is in it (nor was it found by its name). */
export const byMeaningAlone = (h: { retrieval: Pick<SearchHit['retrieval'], 'lexical_rank' | 'vector_rank'> }): boolean =>
  h.retrieval.lexical_rank === null && h.retrieval.vector_rank !== null;

/** Whether a hit is marked as found by meaning: in a hybrid list where others hold the words (meaning_only says it of all). */
export const markedByMeaning = (r: SearchResult, h: SearchHit): boolean => r.mode === 'hybrid' && !r.meaning_only && byMeaningAlone(h);

/**
 * What a list whose every hit came by meaning says above it, in kb search and the app: the nearest by
 * meaning, which may still be far (a word nothing in the library is about finds the least far).
 */
export const MEANING_ONLY_NOTE = 'No passage holds these words: below, the passages nearest to them by meaning.';
