// A search request end to end: validate, parse, retrieve, and shape hits into the wire format.
import type { Statement } from 'better-sqlite3';
import { makeCitation } from '../../shared/citation.js';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import {
  type Anchor,
  type DocType,
  SCHEMA_VERSION,
  type SearchHit,
  type SearchParams,
  SearchParamsSchema,
  type SearchResult,
} from '../../shared/wire.js';
import type { Db } from '../store/db.js';
import { type LexicalHit, type LexicalResult, LexicalSearcher } from './lexical.js';
import { parseQuery } from './query.js';
import { snippetFor } from './snippet.js';

interface HitRow {
  rowid: number;
  id: string;
  doc_id: string;
  ordinal: number;
  text: string;
  heading: string;
  anchor: string;
  path: string;
  title: string;
  type: DocType;
  original: 'copy' | 'reference';
}

export const VECTOR_UNAVAILABLE = 'no embedding model is installed yet; search is lexical only';

export class Searcher {
  readonly lexical: LexicalSearcher;
  private readonly hitRows: Statement;
  private readonly tagsStmt: Statement;
  private readonly totalStmt: Statement;

  constructor(
    db: Db,
    private readonly config: Config,
  ) {
    this.lexical = new LexicalSearcher(db, config);
    // Hits are hydrated with one query per kind of fact, not one per hit.
    this.hitRows = db.prepare(`SELECT c.rowid, c.id, c.doc_id, c.ordinal, c.text, c.heading, c.anchor,
        d.path, d.title, d.type, d.original
      FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid IN (SELECT value FROM json_each(?))`);
    this.tagsStmt = db.prepare(`SELECT dt.doc_id, t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
      WHERE dt.doc_id IN (SELECT value FROM json_each(?)) ORDER BY t.name`);
    this.totalStmt = db.prepare(`SELECT doc_id, count(*) AS n FROM chunks
      WHERE doc_id IN (SELECT value FROM json_each(?)) GROUP BY doc_id`);
  }

  search(input: SearchParams): SearchResult {
    const started = performance.now();
    const parsedParams = SearchParamsSchema.safeParse(input);
    if (!parsedParams.success) {
      throw new KbError('INVALID_ARGUMENT', parsedParams.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
    const p = parsedParams.data;
    const filters = { tags: p.tags.map((t) => t.toLowerCase()), type: p.type, path: p.path, lang: p.lang };
    const q = parseQuery(p.query, { prefix: p.prefix });

    if (p.mode === 'vector') {
      return {
        schema_version: SCHEMA_VERSION,
        query: p.query,
        mode: p.mode,
        results: [],
        total_matches: 0,
        returned: 0,
        took_ms: round(performance.now() - started),
        vector: { status: 'unavailable', reason: VECTOR_UNAVAILABLE },
      };
    }

    const lex = this.lexical.search(q, filters, p.top);
    let hits = lex.hits;
    if (p.threshold !== undefined) hits = hits.filter((h) => h.score >= p.threshold!);
    const results = this.hydrate(hits, lex, p.explain);
    return {
      schema_version: SCHEMA_VERSION,
      query: p.query,
      mode: p.mode,
      results,
      total_matches: lex.total,
      ...(lex.totalEstimated ? { total_matches_estimated: true } : {}),
      returned: results.length,
      took_ms: round(performance.now() - started),
      lexical: { status: 'ok' },
      ...(p.mode === 'hybrid' ? { vector: { status: 'unavailable' as const, reason: VECTOR_UNAVAILABLE } } : {}),
    };
  }

  private hydrate(hits: LexicalHit[], lex: LexicalResult, explain: boolean): SearchHit[] {
    if (hits.length === 0) return [];
    const rows = new Map(
      (this.hitRows.all(JSON.stringify(hits.map((h) => h.rowid))) as HitRow[]).map((r) => [r.rowid, r]),
    );
    const docIds = JSON.stringify([...new Set([...rows.values()].map((r) => r.doc_id))]);
    const tags = new Map<string, string[]>();
    for (const t of this.tagsStmt.all(docIds) as { doc_id: string; name: string }[]) {
      const list = tags.get(t.doc_id) ?? [];
      list.push(t.name);
      tags.set(t.doc_id, list);
    }
    const totals = new Map((this.totalStmt.all(docIds) as { doc_id: string; n: number }[]).map((r) => [r.doc_id, r.n]));
    return hits.map((h, i) => {
      const row = rows.get(h.rowid);
      if (!row) throw new KbError('INTERNAL', `chunk ${h.rowid} vanished during the search`);
      const rank = i + 1;
      const snippet = snippetFor(row.text, h.spans, this.config.search.snippet_chars);
      const anchor = JSON.parse(row.anchor) as Anchor;
      return {
        rank,
        chunk_id: row.id,
        doc_id: row.doc_id,
        score: h.score,
        retrieval: {
          method: 'lexical',
          lexical_rank: rank,
          lexical_score: h.score,
          vector_rank: null,
          vector_score: null,
          fusion_score: null,
          ...(explain
            ? {
                explain: {
                  lexical_share: 1,
                  vector_share: null,
                  bm25_raw: h.bm25,
                  coverage: h.coverage,
                  proximity: h.proximity,
                  fts_query: lex.ftsQuery ?? `substring: ${h.matched.join(', ')}`,
                },
              }
            : {}),
        },
        text: row.text,
        snippet: snippet.text,
        snippet_highlights: snippet.highlights,
        matched_terms: h.matched,
        citation: makeCitation(row.path, anchor, row.heading || undefined),
        source: {
          title: row.title,
          type: row.type,
          tags: tags.get(row.doc_id) ?? [],
          chunk_index: row.ordinal,
          total_chunks: totals.get(row.doc_id) ?? 1,
          original: row.original,
        },
      };
    });
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
