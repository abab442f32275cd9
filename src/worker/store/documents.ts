// The documents table: one row per indexed (or failed) file, and what its status is made of.
import { droppedPattern } from '../uploads.js';
import type { Db } from './db.js';
import type { DocRow, DocWithFacts, DocStamp } from './rows.js';
import type { DocumentsPort, Sync } from './port.js';

export type { DocRow, DocFacts, DocWithFacts, DocStamp } from './rows.js';

/** The facts a document's status is derived from (doc-state.ts), as columns of a query over `documents d`. */
export const FACTS = `(SELECT count(*) FROM chunks c WHERE c.doc_id = d.id) AS chunk_count,
  (SELECT t.status FROM transcripts t WHERE t.doc_id = d.id) AS transcript_status,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'pending') AS ocr_pending,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'failed') AS ocr_failed,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.unreadable_with IS NOT NULL) AS ocr_unreadable,
  EXISTS (SELECT 1 FROM ingest_errors e WHERE e.path = d.path) AS latest_failed`;

export class Documents implements Sync<DocumentsPort> {
  private readonly byPathQ;
  private readonly droppedAsQ;
  private readonly byIdQ;
  private readonly withHashQ;
  private readonly upsertQ;
  private readonly setErrorQ;
  private readonly moveQ;
  private readonly setMtimeQ;
  private readonly setMetaQ;
  private readonly setDurationQ;
  private readonly deleteQ;
  private readonly pruneTagsQ;
  private readonly underQ;
  private readonly listQ;
  private readonly withFactsQ;
  private readonly typesQ;
  private readonly anyQ;
  private readonly countQ;
  private readonly unsettledQ;
  private readonly countUnderQ;
  private readonly storedBytesQ;
  private readonly pathsQ;

  constructor(db: Db) {
    this.byPathQ = db.prepare<[string], DocRow>('SELECT * FROM documents WHERE path = ?');
    this.droppedAsQ = db.prepare<[string], DocRow>("SELECT * FROM documents WHERE path LIKE ? ESCAPE '\\' LIMIT 20");
    this.byIdQ = db.prepare<[string], DocRow>('SELECT * FROM documents WHERE id = ?');
    this.withHashQ = db.prepare<[string], DocRow>("SELECT * FROM documents WHERE content_hash = ? AND status = 'indexed'");
    this.upsertQ = db.prepare<
      [DocRow]
    >(`INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration,
        parser_version, status, error, original, added_at, updated_at, author, created)
      VALUES (@id, @path, @root, @title, @type, @lang, @content_hash, @size, @mtime, @page_count, @duration,
        @parser_version, @status, @error, @original, @added_at, @updated_at, @author, @created)
      ON CONFLICT(id) DO UPDATE SET path = excluded.path, root = excluded.root, title = excluded.title,
        type = excluded.type, lang = excluded.lang, content_hash = excluded.content_hash, size = excluded.size,
        mtime = excluded.mtime, page_count = excluded.page_count, duration = excluded.duration,
        parser_version = excluded.parser_version, status = excluded.status, error = excluded.error,
        original = excluded.original, updated_at = excluded.updated_at, author = excluded.author, created = excluded.created`);
    this.setErrorQ = db.prepare<[string | null, number, string]>('UPDATE documents SET error = ?, updated_at = ? WHERE id = ?');
    this.moveQ = db.prepare<[string, string, number, number, string]>(
      'UPDATE documents SET path = ?, root = ?, mtime = ?, updated_at = ? WHERE id = ?',
    );
    this.setMtimeQ = db.prepare<[number, string]>('UPDATE documents SET mtime = ? WHERE id = ?');
    this.setMetaQ = db.prepare<[{ id: string; title: string; lang: string | null; page_count: number | null }]>(
      'UPDATE documents SET title = @title, lang = @lang, page_count = coalesce(@page_count, page_count) WHERE id = @id',
    );
    this.setDurationQ = db.prepare<[number, string]>('UPDATE documents SET duration = ? WHERE id = ?');
    this.deleteQ = db.prepare<[string]>('DELETE FROM documents WHERE id = ?');
    this.pruneTagsQ = db.prepare<[]>('DELETE FROM tags WHERE id NOT IN (SELECT tag_id FROM document_tags)');
    this.underQ = db.prepare<[string, string], DocStamp>(
      'SELECT id, path, size, mtime, status, added_at FROM documents WHERE path >= ? AND path < ?',
    );
    this.listQ = db.prepare<[], DocWithFacts>(`SELECT d.*, ${FACTS} FROM documents d ORDER BY d.path`);
    this.withFactsQ = db.prepare<[string], DocWithFacts>(`SELECT d.*, ${FACTS} FROM documents d WHERE d.id = ?`);
    this.typesQ = db.prepare<[], { type: string }>("SELECT DISTINCT type FROM documents WHERE status = 'indexed'");
    this.anyQ = db.prepare<[], number>("SELECT EXISTS(SELECT 1 FROM documents WHERE status = 'indexed') AS yes").pluck();
    this.countQ = db.prepare<[], number>('SELECT count(*) FROM documents').pluck();
    // Every way doc-state.ts can find a document failed or waiting starts in one of these small sets;
    // each is read on its own, never by looking at every document's facts.
    this.unsettledQ = db.prepare<[], DocWithFacts>(
      // UNION ALL (IN drops the repeats): a plain UNION had SQLite merge the sets in id order, 600 ms.
      `SELECT d.*, ${FACTS} FROM documents d WHERE d.id IN (
         SELECT id FROM documents WHERE status = 'failed' OR error IS NOT NULL
         UNION ALL SELECT e.id FROM ingest_errors i CROSS JOIN documents e ON e.path = i.path
         UNION ALL SELECT doc_id FROM transcripts WHERE status IN ('waiting', 'pending')
         UNION ALL SELECT doc_id FROM ocr_pages WHERE status = 'pending' OR unreadable_with IS NOT NULL)`,
    );
    this.pathsQ = db.prepare<[], string>('SELECT path FROM documents ORDER BY path').pluck();
    this.countUnderQ = db.prepare<[string, string], number>('SELECT count(*) FROM documents WHERE path >= ? AND path < ?').pluck();
    // A copy is stored once per content (blobs are named by it), however many documents share it.
    this.storedBytesQ = db
      .prepare<[], number>(
        "SELECT coalesce(sum((size + 4095) / 4096 * 4096), 0) FROM (SELECT DISTINCT content_hash, size FROM documents INDEXED BY documents_copies WHERE original = 'copy')",
      )
      .pluck();
  }

  /** The types of the indexed documents. */
  indexedTypes(): Set<string> {
    return new Set(this.typesQ.all().map((r) => r.type));
  }

  count(): number {
    return this.countQ.get() ?? 0;
  }

  /**
   * The documents that may be failed or waiting — a failed row, an error said, a latest attempt that
   * failed, a recording waiting for its transcript, pages waiting for OCR — with their facts, for
   * doc-state.ts to decide: the few that might be, not every row.
   */
  unsettled(): DocWithFacts[] {
    return this.unsettledQ.all();
  }

  /** Every document's path, in order. */
  paths(): string[] {
    return this.pathsQ.all();
  }

  /** How many documents are under a folder (`dir` ends with the separator). */
  countUnder(dir: string): number {
    return this.countUnderQ.get(dir, upperBound(dir)) ?? 0;
  }

  /** Bytes of the copies kept in the blob store, as the index records them. */
  storedBytes(): number {
    return this.storedBytesQ.get() ?? 0;
  }

  /** Whether any document is indexed: the first such row, not a count. */
  anyIndexed(): boolean {
    return this.anyQ.get() === 1;
  }

  byPath(path: string): DocRow | undefined {
    return this.byPathQ.get(path);
  }
  droppedAs(name: string): DocRow[] {
    return this.droppedAsQ.all(droppedPattern(name));
  }
  byId(id: string): DocRow | undefined {
    return this.byIdQ.get(id);
  }
  /** Indexed documents with these bytes (a file that moved keeps its document). */
  indexedWithHash(hash: string): DocRow[] {
    return this.withHashQ.all(hash);
  }
  upsert(doc: DocRow): void {
    this.upsertQ.run({ ...doc, author: doc.author ?? null, created: doc.created ?? null });
  }
  setError(id: string, error: string | null): void {
    this.setErrorQ.run(error, Date.now(), id);
  }
  move(id: string, path: string, root: string, mtime: number): void {
    this.moveQ.run(path, root, mtime, Date.now(), id);
  }
  setMtime(id: string, mtime: number): void {
    this.setMtimeQ.run(mtime, id);
  }
  setMeta(id: string, m: { title: string; lang: string | null; page_count: number | null }): void {
    this.setMetaQ.run({ id, ...m });
  }
  setDuration(id: string, seconds: number): void {
    this.setDurationQ.run(seconds, id);
  }
  /** Deletes the document (its chunks, tags links, originals and queues go by cascade) and unused tags. */
  delete(id: string): void {
    this.deleteQ.run(id);
    this.pruneTagsQ.run();
  }
  /** Documents whose path is under `dir` (a folder path ending in the separator). */
  under(dir: string): DocStamp[] {
    return this.underQ.all(dir, upperBound(dir));
  }
  /** Every document with what its status is made of, in path order. */
  list(): DocWithFacts[] {
    return this.listQ.all();
  }
  withFacts(id: string): DocWithFacts | undefined {
    return this.withFactsQ.get(id);
  }
}

/** Paths under dir sort between dir and dir with its last character bumped: an index range scan. */
function upperBound(dir: string): string {
  return dir.slice(0, -1) + String.fromCharCode(dir.charCodeAt(dir.length - 1) + 1);
}
