// A document's status, in the one vocabulary every view uses (kb ls, inspect, status, collections,
// the Library, the ingest summary): indexed, waiting or failed, with the reason in words. Derived from
// the stored facts each time, so no view can drift from another.
import type { DocStatus } from '../../shared/wire.js';
import type { DocWithFacts } from './repo.js';

export interface DocState {
  status: DocStatus;
  /** Why it is not simply indexed, or what is missing from an indexed one; null when all is well. */
  reason: string | null;
}

/** Who does the waiting work: a running engine that keeps up (engine.keepUp), or the next ingest. */
const WHO = 'kb does it while the app, kb serve or kb watch runs, or at the next kb ingest';

export function docState(d: DocWithFacts): DocState {
  if (d.status === 'failed' || d.latest_failed) {
    const reason = d.error ?? 'the file could not be read';
    return { status: 'failed', reason: d.chunk_count > 0 ? `${reason} (the version indexed before is still searchable)` : reason };
  }
  if (d.transcript_status === 'waiting') return { status: 'waiting', reason: d.error ?? 'waiting for a speech model' };
  if (d.chunk_count === 0) {
    if (d.transcript_status === 'pending') return { status: 'waiting', reason: d.error ?? `waiting to be transcribed (${WHO})` };
    if (d.ocr_pending > 0) return { status: 'waiting', reason: d.error ?? `waiting for OCR (${WHO})` };
    // Read, but in a script whose language data is not installed: it waits for that data (the error
    // says which pages and what to install).
    if (d.ocr_unreadable > 0)
      return { status: 'waiting', reason: d.error?.replace(/^MODEL_MISSING: /, '') ?? 'needs an OCR language that is not installed' };
    // An empty file was read fine and holds nothing; a file that should have text and has none says so.
    return d.error ? { status: 'failed', reason: d.error } : { status: 'indexed', reason: 'empty: there is nothing in it to search' };
  }
  if (d.ocr_pending > 0 && !d.error)
    return { status: 'indexed', reason: d.ocr_pending === 1 ? '1 page still waits for OCR' : `${d.ocr_pending} pages still wait for OCR` };
  return { status: 'indexed', reason: d.error };
}
