// The bytes a document was indexed from, for every pass that reads them again after the batch (OCR,
// transcription): the stored copy, else the file itself only if it still holds those bytes. A file
// edited since is not read under the old document's hash: the next ingest indexes the new version.
import { KbError } from '../../shared/errors.js';
import type { BlobsPort, Store } from '../store/port.js';
import { sha256File } from './read-file.js';

export async function indexedOriginal(
  store: Store,
  blobs: BlobsPort,
  doc: { doc_id: string; path: string; content_hash: string },
): Promise<string> {
  const orig = await store.tables.originals.of(doc.doc_id);
  const copy = orig?.blob ? await blobs.file(orig.blob) : null;
  if (copy) return copy;
  let hash: string;
  try {
    hash = await sha256File(doc.path);
  } catch {
    throw new KbError('VANISHED', `${doc.path} is gone and no copy was kept`);
  }
  if (hash !== doc.content_hash) throw new KbError('VANISHED', `${doc.path} changed since it was indexed; ingest it again`);
  return doc.path;
}
