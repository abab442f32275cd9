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
  private readonly hitRow: Statement;
  private readonly tagsStmt: Statement;
  private readonly totalStmt: Statement;

  constructor(
    db: Db,
    private readonly config: Config,
  ) {
    this.lexical = new LexicalSearcher(db, config);
    this.hitRow = db.prepare(`SELECT c.rowid, c.id, c.doc_id, c.ordinal, c.text, c.heading, c.anchor,
        d.path, d.title, d.type, d.original
      FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid = ?`);
    this.tagsStmt = db.prepare('SELECT t.name FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = ? ORDER BY t.name');
    this.totalStmt = db.prepare('SELECT count(*) AS n FROM chunks WHERE doc_id = ?');
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
    const results = hits.map((h, i) => this.hydrate(h, i + 1, lex, p.explain));
    return {
      schema_version: SCHEMA_VERSION,
      query: p.query,
      mode: p.mode,
      results,
      total_matches: lex.total,
      returned: results.length,
      took_ms: round(performance.now() - started),
      lexical: { status: 'ok' },
      ...(p.mode === 'hybrid' ? { vector: { status: 'unavailable' as const, reason: VECTOR_UNAVAILABLE } } : {}),
    };
  }

  private hydrate(h: LexicalHit, rank: number, lex: LexicalResult, explain: boolean): SearchHit {
    const row = this.hitRow.get(h.rowid) as HitRow | undefined;
    if (!row) throw new KbError('INTERNAL', `chunk ${h.rowid} vanished during the search`);
    const snippet = snippetFor(row.text, h.spans, this.config.search.snippet_chars);
    const anchor = JSON.parse(row.anchor) as Anchor;
    const tags = (this.tagsStmt.all(row.doc_id) as { name: string }[]).map((r) => r.name);
    const total = (this.totalStmt.get(row.doc_id) as { n: number }).n;
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
      source: { title: row.title, type: row.type, tags, chunk_index: row.ordinal, total_chunks: total, original: row.original },
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
