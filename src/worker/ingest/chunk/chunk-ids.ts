// Chunk ids are derived from content, so re-ingesting unchanged text keeps them (and their vectors).
import { createHash } from 'node:crypto';
import type { NewChunk } from '../../store/repo.js';
import type { ParsedChunk } from '../types.js';
import { CHUNKER_VERSION } from '../../version.js';

/**
 * Ids for a document's chunks. `seen` numbers repeats of the same heading and text, so it must span
 * all of a document's batches; `salt` keeps chunks added later (an OCRed page) apart from the rest.
 */
export function chunkIdsFrom(docId: string, chunks: ParsedChunk[], seen: Map<string, number>, firstOrdinal: number, salt = ''): NewChunk[] {
  return chunks.map((c, i) => {
    const key = `${salt}${c.heading}\u0000${c.text}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return {
      id: createHash('sha256').update(`${docId}\u0000${key}\u0000${n}`).digest('hex').slice(0, 24),
      ordinal: firstOrdinal + i,
      heading: c.heading,
      text: c.text,
      anchor: c.anchor,
      chunker_version: CHUNKER_VERSION,
    };
  });
}
