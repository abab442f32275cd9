// The one place a document's row is built, for every kind of file and for a file that failed.
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { DocType } from '../../shared/wire.js';
import type { DocRow } from '../store/repo.js';
import { readAsByName } from './extensions.js';
import { sha256 } from './read-file.js';
import { PARSER_VERSION } from '../version.js';

/** What is known of a file before it is parsed. */
export interface FileFacts {
  docId: string;
  path: string;
  root: string;
  hash: string;
  size: number;
  /** Whole milliseconds (SQLite keeps integers; a reconcile compares them). */
  mtime: number;
  /** Whether a copy of the original is kept in the store. */
  copy: boolean;
  existing: DocRow | null;
}

export function docRow(
  f: FileFacts,
  v: {
    type: DocType;
    title: string;
    author?: string | null;
    created?: string | null;
    lang?: string | null;
    page_count?: number | null;
    duration?: number | null;
    error?: string | null;
    status?: DocRow['status'];
  },
): DocRow {
  const now = Date.now();
  return {
    id: f.docId,
    path: f.path,
    root: f.root,
    title: v.title,
    type: v.type,
    lang: v.lang ?? null,
    content_hash: f.hash,
    size: f.size,
    mtime: f.mtime,
    page_count: v.page_count ?? null,
    duration: v.duration ?? null,
    parser_version: PARSER_VERSION,
    status: v.status ?? 'indexed',
    error: v.error ?? null,
    original: f.copy ? 'copy' : 'reference',
    added_at: f.existing?.added_at ?? now,
    updated_at: now,
    author: v.author ?? null,
    created: v.created ?? null,
  };
}

/** The row of a file that could not be read at all: it shows in kb ls with why. */
export function failedDocRow(path: string, root: string, error: string): DocRow {
  // A file that could not be read is listed as what its name says, text of any kind as a note.
  const named = readAsByName(path)?.type;
  const type: DocType = !named || named === 'markdown' ? 'note' : named;
  // Its size as it is on disk (the Library shows it); 0 only when the file cannot be seen at all.
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch {
    st = undefined; // unreadable (permissions, a loop): no size to show
  }
  const facts = {
    docId: sha256(`doc\u0000${path}\u0000failed`).slice(0, 20),
    path,
    root,
    hash: '',
    size: st?.isFile() ? st.size : 0,
    mtime: 0,
    copy: false,
    existing: null,
  };
  return docRow(facts, { type, title: basename(path), status: 'failed', error });
}
