// The documents table on PostgreSQL (see store/documents.ts for what each method means).
import { basename } from 'node:path';
import type { DocumentsPort } from '../../port.js';
import type { DocRow, DocStamp, DocWithFacts } from '../../rows.js';
import { wordVector } from '../word-vector.js';
import { first, rows, type Sql, upperBound, value } from './sql.js';
import { droppedPattern } from '../../../uploads.js';

/** A document's name words: its title's (A) and its file name's (B), for finding it by name. */
const namesOf = (title: string, path: string): string => wordVector(title, basename(path), '').literal;

/** The facts a document's status is derived from (doc-state.ts), as columns of a query over `documents d`. */
export const FACTS = `d.chunk_count,
  (SELECT t.status FROM transcripts t WHERE t.doc_id = d.id) AS transcript_status,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'pending') AS ocr_pending,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.status = 'failed') AS ocr_failed,
  (SELECT count(*) FROM ocr_pages o WHERE o.doc_id = d.id AND o.unreadable_with IS NOT NULL) AS ocr_unreadable,
  (EXISTS (SELECT 1 FROM ingest_errors e WHERE e.path = d.path))::int AS latest_failed`;

/** The row as the port has it: the names column is the store's own. */
export const DOC_COLUMNS = `d.id, d.path, d.root, d.title, d.type, d.lang, d.content_hash, d.size, d.mtime, d.page_count,
  d.duration, d.parser_version, d.status, d.error, d.original, d.added_at, d.updated_at, d.author, d.created`;

export class PgDocuments implements DocumentsPort {
  constructor(private readonly sql: Sql) {}

  async indexedTypes(): Promise<Set<string>> {
    return new Set(
      (await rows<{ type: string }>(this.sql, "SELECT DISTINCT type FROM documents WHERE status = 'indexed'")).map((r) => r.type),
    );
  }
  async count(): Promise<number> {
    return (await value<number>(this.sql, 'SELECT count(*) FROM documents')) ?? 0;
  }
  unsettled(): Promise<DocWithFacts[]> {
    return rows<DocWithFacts>(
      this.sql,
      `SELECT ${DOC_COLUMNS}, ${FACTS} FROM documents d WHERE d.id IN (
         SELECT id FROM documents WHERE status = 'failed' OR error IS NOT NULL
         UNION ALL SELECT e.id FROM ingest_errors i JOIN documents e ON e.path = i.path
         UNION ALL SELECT doc_id FROM transcripts WHERE status IN ('waiting', 'pending')
         UNION ALL SELECT doc_id FROM ocr_pages WHERE status = 'pending' OR unreadable_with IS NOT NULL)`,
    );
  }
  async paths(): Promise<string[]> {
    return (await rows<{ path: string }>(this.sql, 'SELECT path FROM documents ORDER BY path')).map((r) => r.path);
  }
  async countUnder(dir: string): Promise<number> {
    return (await value<number>(this.sql, 'SELECT count(*) FROM documents WHERE path >= $1 AND path < $2', [dir, upperBound(dir)])) ?? 0;
  }
  async storedBytes(): Promise<number> {
    return (
      (await value<number>(
        this.sql,
        "SELECT coalesce(sum((size + 4095) / 4096 * 4096), 0)::bigint FROM (SELECT DISTINCT content_hash, size FROM documents WHERE original = 'copy') s",
      )) ?? 0
    );
  }
  async anyIndexed(): Promise<boolean> {
    return (await value<boolean>(this.sql, "SELECT EXISTS (SELECT 1 FROM documents WHERE status = 'indexed')")) === true;
  }
  byPath(path: string): Promise<DocRow | undefined> {
    return first<DocRow>(this.sql, `SELECT ${DOC_COLUMNS} FROM documents d WHERE d.path = $1`, [path]);
  }
  byId(id: string): Promise<DocRow | undefined> {
    return first<DocRow>(this.sql, `SELECT ${DOC_COLUMNS} FROM documents d WHERE d.id = $1`, [id]);
  }
  droppedAs(name: string): Promise<DocRow[]> {
    return rows<DocRow>(this.sql, `SELECT ${DOC_COLUMNS} FROM documents d WHERE d.path LIKE $1 ESCAPE '\\' LIMIT 20`, [
      droppedPattern(name),
    ]);
  }
  indexedWithHash(hash: string): Promise<DocRow[]> {
    return rows<DocRow>(this.sql, `SELECT ${DOC_COLUMNS} FROM documents d WHERE d.content_hash = $1 AND d.status = 'indexed'`, [hash]);
  }
  async upsert(d: DocRow): Promise<void> {
    await this.sql.query(
      `INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration,
         parser_version, status, error, original, added_at, updated_at, author, created, names)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20::tsvector)
       ON CONFLICT (id) DO UPDATE SET path = excluded.path, root = excluded.root, title = excluded.title,
         type = excluded.type, lang = excluded.lang, content_hash = excluded.content_hash, size = excluded.size,
         mtime = excluded.mtime, page_count = excluded.page_count, duration = excluded.duration,
         parser_version = excluded.parser_version, status = excluded.status, error = excluded.error,
         original = excluded.original, updated_at = excluded.updated_at, author = excluded.author,
         created = excluded.created, names = excluded.names`,
      [
        d.id,
        d.path,
        d.root,
        d.title,
        d.type,
        d.lang,
        d.content_hash,
        d.size,
        d.mtime,
        d.page_count,
        d.duration,
        d.parser_version,
        d.status,
        d.error,
        d.original,
        d.added_at,
        d.updated_at,
        d.author ?? null,
        d.created ?? null,
        namesOf(d.title, d.path),
      ],
    );
  }
  async setError(id: string, error: string | null): Promise<void> {
    await this.sql.query('UPDATE documents SET error = $1, updated_at = $2 WHERE id = $3', [error, Date.now(), id]);
  }
  async move(id: string, path: string, root: string, mtime: number): Promise<void> {
    await this.sql.query('UPDATE documents SET path = $1, root = $2, mtime = $3, updated_at = $4, names = $5::tsvector WHERE id = $6', [
      path,
      root,
      mtime,
      Date.now(),
      namesOf((await this.byId(id))?.title ?? '', path),
      id,
    ]);
  }
  async setMtime(id: string, mtime: number): Promise<void> {
    await this.sql.query('UPDATE documents SET mtime = $1 WHERE id = $2', [mtime, id]);
  }
  async setMeta(id: string, m: { title: string; lang: string | null; page_count: number | null }): Promise<void> {
    await this.sql.query(
      'UPDATE documents SET title = $1, lang = $2, page_count = coalesce($3, page_count), names = $4::tsvector WHERE id = $5',
      [m.title, m.lang, m.page_count, namesOf(m.title, (await this.byId(id))?.path ?? ''), id],
    );
  }
  async setDuration(id: string, seconds: number): Promise<void> {
    await this.sql.query('UPDATE documents SET duration = $1 WHERE id = $2', [seconds, id]);
  }
  async delete(id: string): Promise<void> {
    await this.sql.query('DELETE FROM documents WHERE id = $1', [id]);
    await this.sql.query('DELETE FROM tags t WHERE NOT EXISTS (SELECT 1 FROM document_tags dt WHERE dt.tag_id = t.id)');
  }
  under(dir: string): Promise<DocStamp[]> {
    return rows<DocStamp>(this.sql, 'SELECT id, path, size, mtime, status, added_at FROM documents WHERE path >= $1 AND path < $2', [
      dir,
      upperBound(dir),
    ]);
  }
  list(): Promise<DocWithFacts[]> {
    return rows<DocWithFacts>(this.sql, `SELECT ${DOC_COLUMNS}, ${FACTS} FROM documents d ORDER BY d.path`);
  }
  withFacts(id: string): Promise<DocWithFacts | undefined> {
    return first<DocWithFacts>(this.sql, `SELECT ${DOC_COLUMNS}, ${FACTS} FROM documents d WHERE d.id = $1`, [id]);
  }
}
