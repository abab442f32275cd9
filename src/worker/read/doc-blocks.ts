// A structured document's blocks, read again from its bytes (the stored copy, or the original):
// what `kb get` and the viewer show of a Word file, a deck, a book, a table, a page or a mailbox.
// Read on a parse thread of its own, so opening a big document never holds up a search; the last
// few are kept, so paging through one book's chapters does not unzip it each time.
import { readFile, stat } from 'node:fs/promises';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { DocumentSource } from '../../shared/wire.js';
import type { BlockDoc } from '../ingest/formats/blocks.js';
import { structuredFormat } from '../ingest/extensions.js';
import { ParsePool } from '../ingest/parse-pool.js';
import { zipLimitsOf } from '../ingest/formats/zip.js';

const cache = new Map<string, BlockDoc>();
const KEEP = 4;
/** One thread, started on first use; an idle pool does not keep the process alive. */
let pool: ParsePool | null = null;

export async function documentBlocks(
  src: Pick<DocumentSource, 'file'> & { path: string },
  config: Config,
  markup: boolean,
): Promise<BlockDoc> {
  const format = structuredFormat(src.path);
  if (!format) throw new KbError('INVALID_ARGUMENT', `${src.path} is not a structured document`);
  // The file's stamp names its version: a cached document is served without reading the file again.
  const st = await stat(src.file);
  const key = `${src.file}\u0000${st.size}\u0000${st.mtimeMs}\u0000${markup}`;
  const hit = cache.get(key);
  if (hit) return hit;
  pool ??= new ParsePool(1);
  const doc = await pool.readBlocks({ format, data: await readFile(src.file), limits: zipLimitsOf(config.ingest), markup });
  cache.set(key, doc);
  if (cache.size > KEEP) cache.delete(cache.keys().next().value!);
  return doc;
}
