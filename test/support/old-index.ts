// An index as an older kb wrote it, for the tests of the upgrades that bring it up to date.
import Database from 'better-sqlite3';
import { MIGRATIONS } from '../../src/worker/store/migrations/index.js';

export const OLD_DOC = '0123456789abcdef0123';

/** An index as kb wrote it at schema 10 (every chunk in the trigram index) at `file`: `rows` chunks of one document. */
export function schema10At(
  file: string,
  text: (i: number) => string,
  rows: number,
  /**
   * The document's file, when it is a real one (the model-based test's), with what makes kb take it
   * for unchanged; else /notes/all.md, which is not there.
   */
  doc: { path: string; root: string; hash?: string; size?: number; mtime?: number; parser?: number } = {
    path: '/notes/all.md',
    root: '/notes',
  },
): void {
  const raw = new Database(file);
  for (const m of MIGRATIONS.filter((x) => x.version <= 10)) raw.exec(m.sql);
  raw.pragma('user_version = 10');
  raw
    .prepare(
      `INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration, parser_version, status, error, original, added_at, updated_at)
       VALUES (?, ?, ?, 'All', 'markdown', 'en', ?, ?, ?, NULL, NULL, ?, 'indexed', NULL, 'reference', 0, 0)`,
    )
    .run(OLD_DOC, doc.path, doc.root, doc.hash ?? 'x', doc.size ?? 1, doc.mtime ?? 0, doc.parser ?? 1);
  const add = raw.prepare(
    `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version) VALUES (?, ?, ?, '', ?, '{"kind":"lines","start":1,"end":1}', 1)`,
  );
  raw.transaction(() => {
    for (let i = 0; i < rows; i++) add.run(`c${i}`, OLD_DOC, i, text(i));
  })();
  raw.close();
}
