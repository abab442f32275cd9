// What a search can be narrowed to: the types of the indexed documents and their tags with how many
// documents carry each. Two grouped queries — listing every document (kb ls) took 380 ms on 13,000.
import { DOC_TYPES, type DocType } from '../../shared/wire.js';
import type { Core } from '../core.js';

export interface Facets {
  /** In DOC_TYPES order. */
  types: DocType[];
  /** The most used first. */
  tags: { name: string; documents: number }[];
}

export function indexFacets(core: Core): Facets {
  const present = new Set(
    (core.db.prepare("SELECT DISTINCT type FROM documents WHERE status = 'indexed'").all() as { type: string }[]).map((r) => r.type),
  );
  const tags = core.db
    .prepare(
      `SELECT t.name AS name, count(*) AS documents FROM document_tags dt
       JOIN tags t ON t.id = dt.tag_id JOIN documents d ON d.id = dt.doc_id
       WHERE d.status = 'indexed' GROUP BY t.name ORDER BY documents DESC, t.name`,
    )
    .all() as { name: string; documents: number }[];
  return { types: DOC_TYPES.filter((t) => present.has(t)), tags };
}

/** Whether any document is indexed: the first such row, not a count. */
export function anyIndexed(core: Core): boolean {
  return core.db.prepare("SELECT EXISTS(SELECT 1 FROM documents WHERE status = 'indexed') AS yes").pluck().get() === 1;
}
