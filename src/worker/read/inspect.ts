// What the index holds, read back: the document list, one document or chunk in full (kb inspect),
// the file behind a document (the viewer), and the text of a cited span (kb get).
import { stillInPlace } from '../ingest/confine.js';
import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { type Anchor, SCHEMA_VERSION, type DocumentSource, type DocumentSummary, type Span } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { Segment } from '../audio/transcriber.js';
import { transcriptText } from '../ingest/speech/chunks.js';
import { docState } from '../store/doc-state.js';
import type { DocWithFacts } from '../store/rows.js';
import type { DocumentRowSchema, InspectChunkSchema, InspectDocSchema } from '../../shared/cli-output.js';
import type { z } from 'zod';

export type InspectedDocument = z.infer<typeof InspectDocSchema>;

export type InspectedChunk = z.infer<typeof InspectChunkSchema>;

export async function listDocuments(core: Core): Promise<DocumentSummary[]> {
  return documentSummaries(core, await core.store.tables.documents.list());
}

/** Documents as kb ls and the Library show them, their tags asked for all at once. */
export async function documentSummaries(core: Core, docs: readonly DocWithFacts[]): Promise<DocumentSummary[]> {
  const tags = await core.store.tables.tags.ofMany(docs.map((d) => d.id));
  return docs.map((d) => documentSummary(d, tags.get(d.id) ?? []));
}

/** A document as kb ls and the Library show it: its status in the one vocabulary (doc-state.ts). */
function documentSummary(d: DocWithFacts, tags: string[]): DocumentSummary {
  return {
    doc_id: d.id,
    path: d.path,
    title: d.title,
    type: d.type,
    ...docState(d),
    error: d.error,
    chunks: d.chunk_count,
    tags,
    size: d.size,
    content_hash: d.content_hash,
    original: d.original,
    original_available: d.original === 'copy' || existsSync(d.path),
    updated_at: new Date(d.updated_at).toISOString(),
    ...(d.author ? { author: d.author } : {}),
    ...(d.created ? { created: d.created } : {}),
    ...(d.duration != null ? { duration: d.duration } : {}),
  };
}

/** The stored row, its status replaced by the one every view shows, and why. */
async function rowWithState(core: Core, id: string): Promise<z.infer<typeof DocumentRowSchema>> {
  const facts = (await core.store.tables.documents.withFacts(id))!;
  const { chunk_count: _c, transcript_status: _t, ocr_pending: _p, ocr_failed: _f, ocr_unreadable: _u, latest_failed: _l, ...row } = facts;
  return { ...row, ...docState(facts) };
}

async function transcriptOf(core: Core, docId: string): Promise<InspectedDocument['transcript']> {
  const t = await core.store.tables.transcripts.of(docId);
  if (!t) return null;
  const segments = t.segments ? (JSON.parse(t.segments) as Segment[]) : null;
  return { status: t.status, model: t.model, language: t.language, error: t.error, text: segments ? transcriptText(segments) : null };
}

export async function inspectDocument(core: Core, idOrPath: string): Promise<InspectedDocument> {
  const { blobs } = core;
  const t = core.store.tables;
  const doc = (await t.documents.byId(idOrPath)) ?? (await t.documents.byPath(resolve(idOrPath)));
  if (!doc) throw new KbError('NOT_FOUND', `no document with id or path ${idOrPath}`);
  const orig = await t.originals.of(doc.id);
  const blobPath = orig?.blob ? await blobs.file(orig.blob) : null;
  return {
    schema_version: SCHEMA_VERSION,
    document: { ...(await rowWithState(core, doc.id)), tags: await t.tags.of(doc.id) },
    original: orig
      ? { mode: orig.mode, sha256: orig.sha256, blob_path: blobPath, available: blobPath ? existsSync(blobPath) : existsSync(doc.path) }
      : null,
    chunks: (await t.chunks.ofDoc(doc.id)).map((c) => ({ ...c, anchor: JSON.parse(c.anchor) as Anchor })),
    ocr_pages: (await t.ocr.of(doc.id)).map(({ page, status, confidence, error }) => ({ page, status, confidence, error })),
    transcript: await transcriptOf(core, doc.id),
    errors: (await t.errors.of(doc.path)).map((e) => ({ code: e.code, message: e.message, at: new Date(e.at).toISOString() })),
  };
}

export async function inspectChunk(core: Core, id: string): Promise<InspectedChunk> {
  const c = await core.store.tables.chunks.byId(id);
  if (!c) throw new KbError('NOT_FOUND', `no chunk with id ${id}`);
  return {
    schema_version: SCHEMA_VERSION,
    chunk: { ...c, anchor: JSON.parse(c.anchor) as Anchor },
    document: await rowWithState(core, c.doc_id),
  };
}

/** The file that holds a document's bytes: the stored copy if there is one, else the original. */
export async function documentSource(core: Core, docId: string): Promise<DocumentSource> {
  const { store, blobs } = core;
  const doc = await store.tables.documents.byId(docId);
  if (!doc || doc.status !== 'indexed') throw new KbError('NOT_FOUND', `no indexed document ${docId}`);
  const orig = await store.tables.originals.of(doc.id);
  const blob = orig?.blob ? await blobs.file(orig.blob) : null;
  const base = {
    schema_version: SCHEMA_VERSION,
    doc_id: doc.id,
    type: doc.type,
    title: doc.title,
    name: basename(doc.path),
    path: doc.path,
  };
  if (blob && existsSync(blob)) return { ...base, file: blob, stale: false };
  const roots = (await store.tables.collections.list()).map((c) => c.root);
  if (existsSync(doc.path) && !(await stillInPlace(doc.path, core.dataDir, roots)))
    throw new KbError('VANISHED', `${doc.path} now leads elsewhere (a link made after it was read): it is not served; add it again`);
  let st;
  try {
    st = statSync(doc.path);
  } catch {
    throw new KbError('VANISHED', `${doc.path} is gone and no copy was kept`);
  }
  return { ...base, file: doc.path, stale: st.size !== doc.size || Math.floor(st.mtimeMs) !== doc.mtime };
}

/** The text of a cited span: `notes.md#L12-L34`, `paper.pdf#page=3`, `talk.mp3#t=10,20`, a file:// URI or a doc id with a fragment. */
export async function getSpan(core: Core, target: string, maxChars?: number): Promise<Span> {
  const { readSpan } = await import('./span.js');
  return readSpan({ store: core.store, config: core.config, source: (id) => documentSource(core, id) }, target, maxChars);
}
