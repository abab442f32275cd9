// Every SQL statement that reads or writes documents, chunks and tags. Callers own transactions.
import type { Statement } from 'better-sqlite3';
import type { Anchor, DocStatus, DocType } from '../../shared/wire.js';
import type { Db } from './db.js';

export interface DocRow {
  id: string;
  path: string;
  root: string | null;
  title: string;
  type: DocType;
  lang: string | null;
  content_hash: string;
  size: number;
  mtime: number;
  page_count: number | null;
  duration: number | null;
  parser_version: number;
  status: DocStatus;
  error: string | null;
  original: 'copy' | 'reference';
  added_at: number;
  updated_at: number;
}

/** What a document's status is derived from, beside its row. */
export interface DocFacts {
  chunk_count: number;
  /** The transcript's state for audio and video: waiting, pending, done, failed; null for the rest. */
  transcript_status: string | null;
  ocr_pending: number;
  ocr_failed: number;
  /** 1 when the latest attempt to read the file failed (a success clears ingest_errors). */
  latest_failed: number;
}
export type DocWithFacts = DocRow & DocFacts;

const DOC_FACTS = `(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count,
  (SELECT t.status FROM transcripts t WHERE t.doc_id = d.id) AS transcript_status,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'pending') AS ocr_pending,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'failed') AS ocr_failed,
  EXISTS (SELECT 1 FROM ingest_errors e WHERE e.path = d.path) AS latest_failed`;

export interface ChunkRow {
  rowid: number;
  id: string;
  doc_id: string;
  ordinal: number;
  heading: string;
  text: string;
  anchor: string;
  chunker_version: number;
}

export interface NewChunk {
  id: string;
  ordinal: number;
  heading: string;
  text: string;
  anchor: Anchor;
  chunker_version: number;
}

export interface OriginalRow {
  doc_id: string;
  mode: 'copy' | 'reference';
  blob: string | null;
  sha256: string;
}

export interface CollectionRow {
  name: string;
  root: string;
  tags: string[];
  glob: string | null;
  added_at: number;
}

/** An audio or video document for the transcription pass. */
export interface TranscriptJob {
  doc_id: string;
  path: string;
  content_hash: string;
  title: string;
}

/** A page (or an image, as page 1) waiting for OCR. */
export interface OcrJob {
  doc_id: string;
  page: number;
  path: string;
  type: string;
  content_hash: string;
}

export class Repo {
  private readonly s: Record<string, Statement>;

  constructor(readonly db: Db) {
    const p = (sql: string): Statement => db.prepare(sql);
    this.s = {
      docByPath: p('SELECT * FROM documents WHERE path = ?'),
      docById: p('SELECT * FROM documents WHERE id = ?'),
      docsByHash: p("SELECT * FROM documents WHERE content_hash = ? AND status = 'indexed'"),
      upsertDoc: p(`INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration,
          parser_version, status, error, original, added_at, updated_at)
        VALUES (@id, @path, @root, @title, @type, @lang, @content_hash, @size, @mtime, @page_count, @duration,
          @parser_version, @status, @error, @original, @added_at, @updated_at)
        ON CONFLICT(id) DO UPDATE SET path = excluded.path, root = excluded.root, title = excluded.title,
          type = excluded.type, lang = excluded.lang, content_hash = excluded.content_hash, size = excluded.size,
          mtime = excluded.mtime, page_count = excluded.page_count, duration = excluded.duration,
          parser_version = excluded.parser_version, status = excluded.status, error = excluded.error,
          original = excluded.original, updated_at = excluded.updated_at`),
      setDocError: p('UPDATE documents SET error = ?, updated_at = ? WHERE id = ?'),
      movePath: p('UPDATE documents SET path = ?, root = ?, mtime = ?, updated_at = ? WHERE id = ?'),
      deleteChunks: p('DELETE FROM chunks WHERE doc_id = ?'),
      queueOcr: p("INSERT INTO ocr_pages (doc_id, page, status) VALUES (?, ?, 'pending') ON CONFLICT(doc_id, page) DO UPDATE SET status = 'pending', confidence = NULL, error = NULL"),
      clearOcr: p('DELETE FROM ocr_pages WHERE doc_id = ?'),
      pendingOcr: p(`SELECT o.doc_id, o.page, d.path, d.type, d.content_hash FROM ocr_pages o JOIN documents d ON d.id = o.doc_id
        WHERE o.status = 'pending' ORDER BY d.path, o.page`),
      finishOcr: p('UPDATE ocr_pages SET status = @status, confidence = @confidence, error = @error WHERE doc_id = @doc_id AND page = @page'),
      ocrOf: p('SELECT page, status, confidence, error FROM ocr_pages WHERE doc_id = ? ORDER BY page'),
      queueTranscript: p(`INSERT INTO transcripts (doc_id, status) VALUES (?, ?)
        ON CONFLICT(doc_id) DO UPDATE SET status = excluded.status, model = NULL, language = NULL, segments = NULL, error = NULL`),
      pendingTranscripts: p(`SELECT t.doc_id, d.path, d.content_hash, d.title FROM transcripts t JOIN documents d ON d.id = t.doc_id
        WHERE t.status = 'pending' ORDER BY d.path`),
      waitingTranscripts: p("SELECT doc_id FROM transcripts WHERE status = 'waiting'"),
      wakeTranscripts: p("UPDATE transcripts SET status = 'pending' WHERE status = 'waiting'"),
      finishTranscript: p('UPDATE transcripts SET status = @status, model = @model, language = @language, segments = @segments, error = @error WHERE doc_id = @doc_id'),
      transcriptOf: p('SELECT status, model, language, segments, error FROM transcripts WHERE doc_id = ?'),
      setDuration: p('UPDATE documents SET duration = ? WHERE id = ?'),
      addCollection: p('INSERT INTO collections (name, root, tags, glob, added_at) VALUES (@name, @root, @tags, @glob, @added_at)'),
      collections: p('SELECT name, root, tags, glob, added_at FROM collections ORDER BY name'),
      forgetCollection: p('DELETE FROM collections WHERE name = ?'),
      docsUnder: p("SELECT id, path, size, mtime, status FROM documents WHERE path >= ? AND path < ?"),
      setMtime: p('UPDATE documents SET mtime = ? WHERE id = ?'),
      maxOrdinal: p('SELECT coalesce(max(ordinal), -1) AS n FROM chunks WHERE doc_id = ?'),
      setDocMeta: p('UPDATE documents SET title = @title, lang = @lang, page_count = coalesce(@page_count, page_count) WHERE id = @id'),
      insertChunk: p(`INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version)
        VALUES (@id, @doc_id, @ordinal, @heading, @text, @anchor, @chunker_version)`),
      chunkById: p('SELECT * FROM chunks WHERE id = ?'),
      chunksOfDoc: p('SELECT * FROM chunks WHERE doc_id = ? ORDER BY ordinal'),
      countChunks: p('SELECT count(*) AS n FROM chunks WHERE doc_id = ?'),
      deleteDoc: p('DELETE FROM documents WHERE id = ?'),
      insertTag: p('INSERT INTO tags (name) VALUES (?) ON CONFLICT(name) DO NOTHING'),
      tagId: p('SELECT id FROM tags WHERE name = ?'),
      linkTag: p('INSERT OR IGNORE INTO document_tags (doc_id, tag_id) VALUES (?, ?)'),
      refreshFts: p('UPDATE chunks SET heading = heading WHERE doc_id = ?'),
      tagsOfDoc: p('SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ? ORDER BY t.name'),
      pruneTags: p('DELETE FROM tags WHERE id NOT IN (SELECT tag_id FROM document_tags)'),
      insertError: p('INSERT INTO ingest_errors (path, code, message, at) VALUES (?, ?, ?, ?)'),
      clearErrors: p('DELETE FROM ingest_errors WHERE path = ?'),
      errorsOf: p('SELECT path, code, message, at FROM ingest_errors WHERE path = ? ORDER BY id'),
      upsertOriginal: p(`INSERT INTO originals (doc_id, mode, blob, sha256) VALUES (@doc_id, @mode, @blob, @sha256)
        ON CONFLICT(doc_id) DO UPDATE SET mode = excluded.mode, blob = excluded.blob, sha256 = excluded.sha256`),
      originalOf: p('SELECT * FROM originals WHERE doc_id = ?'),
      liveBlobs: p('SELECT DISTINCT blob FROM originals WHERE blob IS NOT NULL'),
      listDocs: p(`SELECT d.*, ${DOC_FACTS} FROM documents d ORDER BY d.path`),
      docFacts: p(`SELECT d.*, ${DOC_FACTS} FROM documents d WHERE d.id = ?`),
    };
  }

  docByPath(path: string): DocRow | undefined {
    return this.s.docByPath!.get(path) as DocRow | undefined;
  }
  docById(id: string): DocRow | undefined {
    return this.s.docById!.get(id) as DocRow | undefined;
  }
  docsByHash(hash: string): DocRow[] {
    return this.s.docsByHash!.all(hash) as DocRow[];
  }
  upsertDoc(doc: DocRow): void {
    this.s.upsertDoc!.run(doc);
  }
  setDocError(id: string, error: string | null): void {
    this.s.setDocError!.run(error, Date.now(), id);
  }
  movePath(id: string, path: string, root: string, mtime: number): void {
    this.s.movePath!.run(path, root, mtime, Date.now(), id);
  }
  replaceChunks(docId: string, chunks: NewChunk[]): void {
    this.s.deleteChunks!.run(docId);
    for (const c of chunks) {
      this.s.insertChunk!.run({ ...c, doc_id: docId, anchor: JSON.stringify(c.anchor) });
    }
  }
  queueOcr(docId: string, pages: number[]): void {
    for (const p of pages) this.s.queueOcr!.run(docId, p);
  }
  clearOcr(docId: string): void {
    this.s.clearOcr!.run(docId);
  }
  pendingOcr(): OcrJob[] {
    return this.s.pendingOcr!.all() as OcrJob[];
  }
  finishOcr(r: { doc_id: string; page: number; status: 'done' | 'failed'; confidence: number | null; error: string | null }): void {
    this.s.finishOcr!.run(r);
  }
  ocrOf(docId: string): { page: number; status: string; confidence: number | null; error: string | null }[] {
    return this.s.ocrOf!.all(docId) as { page: number; status: string; confidence: number | null; error: string | null }[];
  }
  addCollection(c: CollectionRow): void {
    this.s.addCollection!.run({ ...c, tags: JSON.stringify(c.tags) });
  }
  collections(): CollectionRow[] {
    return (this.s.collections!.all() as (Omit<CollectionRow, 'tags'> & { tags: string })[]).map((r) => ({ ...r, tags: JSON.parse(r.tags) as string[] }));
  }
  forgetCollection(name: string): boolean {
    return this.s.forgetCollection!.run(name).changes > 0;
  }
  /** Documents whose path is under `dir` (a folder path ending in the separator). */
  docsUnder(dir: string): { id: string; path: string; size: number; mtime: number; status: string }[] {
    // Paths under dir sort between dir and dir with its last character bumped: an index range scan.
    const hi = dir.slice(0, -1) + String.fromCharCode(dir.charCodeAt(dir.length - 1) + 1);
    return this.s.docsUnder!.all(dir, hi) as { id: string; path: string; size: number; mtime: number; status: string }[];
  }
  setMtime(id: string, mtime: number): void {
    this.s.setMtime!.run(mtime, id);
  }
  queueTranscript(docId: string, status: 'waiting' | 'pending'): void {
    this.s.queueTranscript!.run(docId, status);
  }
  pendingTranscripts(): TranscriptJob[] {
    return this.s.pendingTranscripts!.all() as TranscriptJob[];
  }
  waitingTranscripts(): Set<string> {
    return new Set((this.s.waitingTranscripts!.all() as { doc_id: string }[]).map((r) => r.doc_id));
  }
  /** A speech model is installed: everything waiting for one is queued; returns the documents. */
  wakeTranscripts(): string[] {
    const ids = [...this.waitingTranscripts()];
    this.db.transaction(() => {
      this.s.wakeTranscripts!.run();
      for (const id of ids) this.setDocError(id, null);
    })();
    return ids;
  }
  finishTranscript(r: { doc_id: string; status: 'done' | 'failed'; model: string | null; language: string | null; segments: string | null; error: string | null }): void {
    this.s.finishTranscript!.run(r);
  }
  transcriptOf(docId: string): { status: string; model: string | null; language: string | null; segments: string | null; error: string | null } | undefined {
    return this.s.transcriptOf!.get(docId) as { status: string; model: string | null; language: string | null; segments: string | null; error: string | null } | undefined;
  }
  setDuration(docId: string, seconds: number): void {
    this.s.setDuration!.run(seconds, docId);
  }
  nextOrdinal(docId: string): number {
    return (this.s.maxOrdinal!.get(docId) as { n: number }).n + 1;
  }
  /** Appends chunks (a PDF's next pages) without touching the document's others. */
  insertChunks(docId: string, chunks: NewChunk[]): void {
    for (const c of chunks) this.s.insertChunk!.run({ ...c, doc_id: docId, anchor: JSON.stringify(c.anchor) });
  }
  setDocMeta(id: string, m: { title: string; lang: string | null; page_count: number | null }): void {
    this.s.setDocMeta!.run({ id, ...m });
  }
  chunkById(id: string): ChunkRow | undefined {
    return this.s.chunkById!.get(id) as ChunkRow | undefined;
  }
  chunksOfDoc(docId: string): ChunkRow[] {
    return this.s.chunksOfDoc!.all(docId) as ChunkRow[];
  }
  countChunks(docId: string): number {
    return (this.s.countChunks!.get(docId) as { n: number }).n;
  }
  deleteDoc(id: string): void {
    this.s.deleteDoc!.run(id);
    this.s.pruneTags!.run();
  }
  /** Links tags to a document; returns how many were new. */
  /** The documents that already carry every one of these tags (normalised names). */
  docsWithAllTags(tags: string[]): Set<string> {
    if (tags.length === 0) return new Set();
    const rows = this.db
      .prepare(
        `SELECT dt.doc_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
         WHERE t.name IN (${tags.map(() => '?').join(',')}) GROUP BY dt.doc_id HAVING count(*) = ?`,
      )
      .all(...tags, tags.length) as { doc_id: string }[];
    return new Set(rows.map((r) => r.doc_id));
  }
  addTags(docId: string, tags: string[]): number {
    let added = 0;
    for (const t of tags) {
      this.s.insertTag!.run(t);
      const row = this.s.tagId!.get(t) as { id: number };
      added += this.s.linkTag!.run(docId, row.id).changes;
    }
    return added;
  }
  /** Re-indexes a document's chunks so their filter tokens (tags) are current. */
  refreshFts(docId: string): void {
    this.s.refreshFts!.run(docId);
  }
  tagsOf(docId: string): string[] {
    return (this.s.tagsOfDoc!.all(docId) as { name: string }[]).map((r) => r.name);
  }
  recordError(path: string, code: string, message: string): void {
    this.s.insertError!.run(path, code, message, Date.now());
  }
  clearErrors(path: string): void {
    this.s.clearErrors!.run(path);
  }
  errorsOf(path: string): { path: string; code: string; message: string; at: number }[] {
    return this.s.errorsOf!.all(path) as { path: string; code: string; message: string; at: number }[];
  }
  setOriginal(o: OriginalRow): void {
    this.s.upsertOriginal!.run(o);
  }
  originalOf(docId: string): OriginalRow | undefined {
    return this.s.originalOf!.get(docId) as OriginalRow | undefined;
  }
  liveBlobs(): Set<string> {
    return new Set((this.s.liveBlobs!.all() as { blob: string }[]).map((r) => r.blob));
  }
  /** Every document with what its status is made of (see read/doc-state.ts), in path order. */
  listDocs(): DocWithFacts[] {
    return this.s.listDocs!.all() as DocWithFacts[];
  }
  docWithFacts(id: string): DocWithFacts | undefined {
    return this.s.docFacts!.get(id) as DocWithFacts | undefined;
  }
}
