// A search's filters as SQL over `documents d`, and as terms of the word index's meta column: applied
// inside the candidate query, never after the top-k cut.
import { pathMatcher } from './path-glob.js';
import type { Db } from './db.js';
import { type DocType, docType } from '../../shared/doc-types.js';

export { pathMatcher };

export interface Filters {
  tags: string[];
  type?: DocType | undefined;
  path?: string | undefined;
  lang?: string | undefined;
}

export interface FilterSql {
  /** `AND …` clauses over `d`, or ''. */
  where: string;
  params: unknown[];
  /** False when nothing filters: the query can skip joining documents. */
  active: boolean;
}

/** Registers `kb_path_match(glob, path)` for SQL that filters documents by path. */
export function registerPathMatch(db: Db): void {
  db.function('kb_path_match', { deterministic: true }, (glob: unknown, path: unknown) => {
    if (typeof glob !== 'string' || typeof path !== 'string') return 0;
    return pathMatcher(glob)(path) ? 1 : 0;
  });
}

export function filterSql(f: Filters): FilterSql {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.type) {
    parts.push('d.type = ?');
    params.push(f.type);
  }
  if (f.lang) {
    parts.push('d.lang = ?');
    params.push(f.lang.toLowerCase());
  }
  if (f.path) {
    parts.push('kb_path_match(?, d.path)');
    params.push(f.path);
  }
  if (f.tags.length > 0) {
    parts.push(
      `d.id IN (SELECT dt.doc_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
        WHERE t.name IN (${f.tags.map(() => '?').join(', ')}) GROUP BY dt.doc_id HAVING count(*) = ?)`,
    );
    params.push(...f.tags, f.tags.length);
  }
  const active = parts.length > 0;
  parts.push("d.status = 'indexed'");
  return { where: parts.map((p) => `AND ${p}`).join(' '), params, active };
}

export interface FtsFilter {
  /** `meta : kbtag12 AND …`, to AND with the query; null when nothing to filter. */
  clause: string | null;
  /** A tag nobody has: nothing can match. */
  impossible: boolean;
}

/**
 * Type, language and tag filters as FTS5 terms on the meta column: FTS5 intersects doclists, so a
 * filter makes the search cheaper instead of adding a join per matching row.
 */
export function filterFts(tagId: (name: string) => number | undefined, f: Filters): FtsFilter {
  const parts: string[] = [];
  if (f.type) parts.push(`kbtype${docType(f.type).token}`);
  if (f.lang) parts.push(`kblang${Buffer.from(f.lang.toLowerCase(), 'utf8').toString('hex')}0`);
  if (f.tags.length > 0) {
    const ids = f.tags.map(tagId);
    if (ids.some((id) => id === undefined)) return { clause: null, impossible: true };
    for (const id of ids) parts.push(`kbtag${id}`);
  }
  return { clause: parts.length > 0 ? parts.map((p) => `meta : ${p}`).join(' AND ') : null, impossible: false };
}
