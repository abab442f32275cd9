// A structured document's blocks, read again from its bytes (the stored copy, or the original):
// what `kb get` and the viewer show of a Word file, a deck, a book, a table, a page or a mailbox.
// The last few are kept, so paging through one book's chapters does not unzip it each time.
import { readFile } from 'node:fs/promises';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { DocumentSource } from '../../shared/wire.js';
import type { BlockDoc } from '../ingest/formats/blocks.js';
import { readStructured, structuredFormat } from '../ingest/formats/structured.js';

const cache = new Map<string, BlockDoc>();
const KEEP = 4;

export async function documentBlocks(src: Pick<DocumentSource, 'file'> & { path: string }, config: Config, markup: boolean): Promise<BlockDoc> {
  const format = structuredFormat(src.path);
  if (!format) throw new KbError('INVALID_ARGUMENT', `${src.path} is not a structured document`);
  const bytes = await readFile(src.file);
  const key = `${src.file}\u0000${bytes.length}\u0000${markup}\u0000${bytes.subarray(0, 64).toString('hex')}\u0000${bytes.subarray(-64).toString('hex')}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const limits = { max_expanded_bytes: config.ingest.zip_max_expanded_bytes, max_ratio: config.ingest.zip_max_ratio };
  const doc = await readStructured(format, bytes, limits, markup);
  cache.set(key, doc);
  if (cache.size > KEEP) cache.delete(cache.keys().next().value!);
  return doc;
}
