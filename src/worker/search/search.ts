// A search request end to end: validate, parse, retrieve, and shape hits into the wire format.
import { HitReader } from '../store/hits.js';
import { Originals } from '../store/originals.js';
import { imageBox } from './image-box.js';
import { citationLabel, makeCitation } from '../../shared/citation.js';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import {
  type Anchor,
  type Citation,
  SCHEMA_VERSION,
  type Retrieval,
  type ResolvedSearchParams,
  type SearchHit,
  type SearchParams,
  SearchParamsSchema,
  type SearchResult,
} from '../../shared/wire.js';
import type { Db } from '../store/db.js';
import type { Semantic } from '../vectors/semantic.js';
import { convex, rrf } from './fusion.js';
import { type LexicalHit, type LexicalResult, LexicalSearcher } from './lexical.js';
import { type NameMatch, NameSearcher } from './names.js';
import { docState } from '../store/doc-state.js';
import { type Filters, registerPathMatch } from '../store/doc-filter.js';
import type { ParsedQuery } from './query.js';
import { parseQuery, queryNotice } from './query.js';
import { correctedQuery } from './spelling.js';
import { markdownMask } from './markup.js';
import { snippetFor } from './snippet.js';
import { describeIssues } from '../../shared/issues.js';

/** The citation with its human label (file name, span, section), as the UI shows it. */
function labelled<C extends Citation>(c: C): C {
  return { ...c, label: citationLabel(c, c.path.split(/[\\/]/).pop() ?? c.path) };
}

export const VECTOR_UNAVAILABLE = 'no embedding model installed — run: kb models pull all-MiniLM-L6-v2';

/** A hit before hydration: where it is, how it scored, and what of the query it holds. */
interface HitIn {
  rowid: number;
  score: number;
  retrieval: Retrieval;
  matched: string[];
  spans: [number, number][];
}

export class Searcher {
  readonly lexical: LexicalSearcher;
  private readonly reader: HitReader;
  private readonly names: NameSearcher;

  private readonly originals: Originals;

  constructor(
    db: Db,
    private readonly config: Config,
    /** Where a stored copy's bytes are (a waiting scan's frame is read from them). */
    private readonly blobPath: (sha256: string) => string = () => '',
  ) {
    registerPathMatch(db);
    this.lexical = new LexicalSearcher(db, config);
    this.reader = new HitReader(db);
    this.names = new NameSearcher(db);
    this.originals = new Originals(db);
  }

  /** A waiting scan is cited as its whole frame, read from the file or its stored copy; never an empty region. */
  private wholeImage(d: { id: string; path: string }): Anchor {
    const blob = this.originals.of(d.id)?.blob;
    const box = imageBox(blob ? [this.blobPath(blob), d.path] : [d.path]);
    return box ? { kind: 'region', x: 0, y: 0, w: box.w, h: box.h } : { kind: 'page', page: 1 };
  }

  private validate(input: SearchParams): ResolvedSearchParams {
    const parsedParams = SearchParamsSchema.safeParse(input);
    if (!parsedParams.success) {
      throw new KbError('INVALID_ARGUMENT', describeIssues(parsedParams.error));
    }
    return parsedParams.data;
  }

  /**
   * The query with the words the index does not hold corrected (spelling.ts), or null when every word
   * is held (or none has a correction one edit away).
   */
  correction(query: string, prefix: boolean): NonNullable<SearchResult['corrected']> | null {
    const q = parseQuery(query, { prefix });
    const fixes = this.lexical.spelling(q);
    return fixes.length > 0 ? { query: correctedQuery(query, fixes), words: fixes.map(([from, to]) => ({ from, to })) } : null;
  }

  /** Lexical search; in hybrid or vector mode, says why vectors are unavailable. */
  search(input: SearchParams, vectorUnavailable = VECTOR_UNAVAILABLE): SearchResult {
    const started = performance.now();
    const p = this.validate(input);
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
        vector: { status: 'unavailable', reason: vectorUnavailable },
      };
    }

    const lex = this.lexical.search(q, filters, p.top);
    let hits = lex.hits;
    if (p.threshold !== undefined) hits = hits.filter((h) => h.score >= p.threshold!);
    const results = this.withNames(
      this.hydrate(hits.map((h, i) => ({ ...h, retrieval: this.lexicalRetrieval(h, i + 1, lex, p.explain) }))),
      p,
      q,
      filters,
    );
    return {
      schema_version: SCHEMA_VERSION,
      query: p.query,
      mode: p.mode,
      results,
      total_matches: lex.total + results.filter((r) => r.retrieval.by_name).length,
      ...(lex.totalEstimated ? { total_matches_estimated: true } : {}),
      returned: results.length,
      took_ms: round(performance.now() - started),
      lexical: { status: 'ok' },
      ...queryNotice(p.query),
      ...(p.mode === 'hybrid' ? { vector: { status: 'unavailable' as const, reason: vectorUnavailable } } : {}),
    };
  }

  private lexicalRetrieval(h: LexicalHit, rank: number, lex: LexicalResult, explain: boolean): Retrieval {
    return {
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
              feedback: h.feedback,
              fts_query: lex.ftsQuery ?? `substring: ${h.matched.join(', ')}`,
            },
          }
        : {}),
    };
  }

  /**
   * Vector or hybrid search: each side retrieves top × candidates_factor, fused by Reciprocal Rank
   * Fusion. A hit both sides found takes its snippet from the lexical side.
   */
  async searchWith(input: SearchParams, sem: Semantic): Promise<SearchResult> {
    const started = performance.now();
    const p = this.validate(input);
    const filters = { tags: p.tags.map((t) => t.toLowerCase()), type: p.type, path: p.path, lang: p.lang };
    const q = parseQuery(p.query, { prefix: p.prefix });
    const k = p.top * this.config.search.candidates_factor;
    // The query is embedded first; LanceDB then searches on its own threads while the words are
    // looked up here, so the two halves overlap.
    const qv = q.kind === 'empty' ? undefined : await sem.embedQuery(p.query);
    const nearest = qv
      ? sem.nearest(qv, k, {
          type: filters.type,
          lang: filters.lang?.toLowerCase(),
          tags: filters.tags,
          pathDocs: filters.path ? this.lexical.docsMatching(filters.path) : undefined,
        })
      : Promise.resolve([]);
    nearest.catch(() => undefined); // awaited below; a lexical error must not leave it unhandled
    const lex = p.mode === 'hybrid' ? this.lexical.search(q, filters, k) : null;
    const vec = await nearest;
    // Vectors are keyed by chunk id; a vector whose chunk is gone (not yet reconciled) is dropped.
    const ids = this.reader.rowidsOf(vec.map((v) => v.chunk_id));
    const vecList = vec.flatMap((v) =>
      ids.has(v.chunk_id) ? [{ rowid: ids.get(v.chunk_id)!, chunkId: v.chunk_id, similarity: v.similarity }] : [],
    );
    const lexHits = lex?.hits ?? [];
    const lexIds = this.reader.idsOf(lexHits.map((h) => h.rowid));
    const byLexRow = new Map(lexHits.map((h) => [h.rowid, h]));
    const simByRow = new Map(vecList.map((v) => [v.rowid, v.similarity]));
    let items: HitIn[];
    if (p.mode === 'vector') {
      items = vecList.map((v, i) => ({
        rowid: v.rowid,
        score: v.similarity,
        matched: [],
        spans: [],
        retrieval: {
          method: 'vector',
          lexical_rank: null,
          lexical_score: null,
          vector_rank: i + 1,
          vector_score: v.similarity,
          fusion_score: null,
        },
      }));
    } else {
      const lexRanked = lexHits.map((h) => ({ rowid: h.rowid, chunkId: lexIds.get(h.rowid) ?? '', score: h.score }));
      const vecRanked = vecList.map((v) => ({ rowid: v.rowid, chunkId: v.chunkId, score: v.similarity }));
      const fused =
        p.fusion === 'convex'
          ? convex(lexRanked, vecRanked, this.config.search.convex_alpha)
          : rrf(lexRanked, vecRanked, this.config.search.rrf_k);
      items = fused.map((f) => {
        const l = byLexRow.get(f.rowid);
        return {
          rowid: f.rowid,
          score: f.fused,
          matched: l?.matched ?? [],
          spans: l?.spans ?? [],
          retrieval: {
            method: 'hybrid',
            lexical_rank: f.lexicalRank,
            lexical_score: l?.score ?? null,
            vector_rank: f.vectorRank,
            vector_score: simByRow.get(f.rowid) ?? null,
            fusion_score: f.fused,
            ...(p.explain
              ? {
                  explain: {
                    lexical_share: f.lexicalShare,
                    vector_share: f.vectorShare,
                    bm25_raw: l?.bm25 ?? null,
                    coverage: l?.coverage ?? null,
                    proximity: l?.proximity ?? null,
                    feedback: l?.feedback ?? null,
                    fts_query: lex?.ftsQuery ?? null,
                  },
                }
              : {}),
          },
        };
      });
    }
    if (p.threshold !== undefined) items = items.filter((h) => h.score >= p.threshold!);
    items = items.slice(0, p.top);
    // Names are words: a search by meaning alone (vector mode) does not add them.
    const results = p.mode === 'vector' ? this.hydrate(items) : this.withNames(this.hydrate(items), p, q, filters);
    const vectorOnly = vecList.filter((v) => !byLexRow.has(v.rowid)).length;
    return {
      schema_version: SCHEMA_VERSION,
      query: p.query,
      mode: p.mode,
      results,
      total_matches: (lex?.total ?? 0) + vectorOnly + results.filter((r) => r.retrieval.by_name).length,
      total_matches_estimated: true,
      returned: results.length,
      took_ms: round(performance.now() - started),
      ...(lex ? { lexical: { status: 'ok' as const } } : {}),
      ...queryNotice(p.query),
      vector: { status: 'ok' },
    };
  }

  /**
   * Adds the documents whose file name (or tag, or title while they have no passages) holds every word
   * typed and that no passage found:
   * first when the query is the name itself (`jfk.mp3`), else after the best passage. A document
   * with no passages yet (a recording waiting for a speech model) comes with the reason.
   */
  private withNames(results: SearchHit[], p: ResolvedSearchParams, q: ParsedQuery, filters: Filters): SearchHit[] {
    const found = new Set(results.map((r) => r.doc_id));
    const all = this.names.find(p.query, q, filters, p.top, found);
    if (all.length === 0) return results;
    // Named exactly and found by its passages too: its best passage goes first.
    const top = results[0]?.score ?? 1;
    const named = new Set(all.filter((m) => m.exact && found.has(m.doc.id)).map((m) => m.doc.id));
    const firsts = results.filter((r, i) => named.has(r.doc_id) && results.findIndex((x) => x.doc_id === r.doc_id) === i);
    // Found by its passages as well: not a name-only hit (total_matches counts it once already).
    const lifted = firsts.map((h) => ({ ...h, score: Math.max(h.score, top) }));
    const others = results.filter((r) => !firsts.includes(r));
    const matches = all.filter((m) => !found.has(m.doc.id));
    const method = results[0]?.retrieval.method ?? (p.mode === 'hybrid' ? 'hybrid' : 'lexical');
    const byName = (m: NameMatch, score: number): SearchHit => {
      const retrieval: Retrieval = {
        method,
        lexical_rank: null,
        lexical_score: null,
        vector_rank: null,
        vector_score: null,
        fusion_score: null,
        by_name: true,
      };
      if (m.firstChunk !== null) {
        const [hit] = this.hydrate([{ rowid: m.firstChunk, score, retrieval, matched: [], spans: [] }]);
        if (hit) return hit;
      }
      return this.chunkless(m, score, retrieval);
    };
    const exact = matches.filter((m) => m.exact).map((m) => byName(m, top));
    const rest = matches.filter((m) => !m.exact).map((m) => byName(m, top));
    const merged = [...lifted, ...exact, ...others.slice(0, 1), ...rest, ...others.slice(1)].slice(0, p.top);
    return merged.map((h, i) => ({ ...h, rank: i + 1 }));
  }

  /**
   * A document at its start, as a hit the viewer opens (a Library row): its first passage, or — with
   * none yet — the document itself, cited at its start with why it has none. A document that failed and
   * holds nothing says so.
   */
  atStart(docId: string): SearchHit {
    const m = this.names.document(docId);
    if (!m) throw new KbError('NOT_FOUND', `no document with id ${docId}`);
    const retrieval: Retrieval = {
      method: 'lexical',
      lexical_rank: null,
      lexical_score: null,
      vector_rank: null,
      vector_score: null,
      fusion_score: null,
      by_name: true,
    };
    if (m.firstChunk !== null) {
      const [hit] = this.hydrate([{ rowid: m.firstChunk, score: 1, retrieval, matched: [], spans: [] }]);
      if (hit) return hit;
    }
    if (m.doc.status === 'failed') {
      const reason = docState(m.doc).reason;
      const name = m.doc.path.split(/[\\/]/).pop() ?? m.doc.path;
      throw new KbError('NOT_FOUND', `${name} has nothing to show yet${reason ? `: ${reason}` : ''}`);
    }
    return this.chunkless(m, 1, retrieval);
  }

  /** A document found by name that has no passage yet: cited at its start, with why it has none. */
  private chunkless(m: NameMatch, score: number, retrieval: Retrieval): SearchHit {
    const d = m.doc;
    const anchor: Anchor =
      d.type === 'audio'
        ? { kind: 'time', start: 0, end: d.duration ?? 0 }
        : d.type === 'pdf'
          ? { kind: 'page', page: 1 }
          : d.type === 'image'
            ? this.wholeImage(d)
            : { kind: 'lines', start: 1, end: 1 };
    const reason = docState(d).reason ?? undefined;
    return {
      rank: 1,
      chunk_id: '',
      doc_id: d.id,
      score,
      retrieval,
      text: '',
      snippet: reason ?? '',
      snippet_highlights: [],
      matched_terms: [],
      citation: labelled(makeCitation(d.path, anchor)),
      source: {
        title: d.title,
        type: d.type,
        tags: this.reader.tagsOf([d.id]).get(d.id) ?? [],
        chunk_index: 0,
        total_chunks: 0,
        original: d.original,
        ...(reason ? { reason } : {}),
      },
    };
  }

  private hydrate(hits: HitIn[]): SearchHit[] {
    if (hits.length === 0) return [];
    const rows = this.reader.rows(hits.map((h) => h.rowid));
    const docIds = [...new Set([...rows.values()].map((r) => r.doc_id))];
    const tags = this.reader.tagsOf(docIds);
    const totals = this.reader.chunkCounts(docIds);
    return hits.map((h, i) => {
      const row = rows.get(h.rowid);
      if (!row) throw new KbError('INTERNAL', `chunk ${h.rowid} vanished during the search`);
      // Markdown reads as prose in a snippet: no #, **, link targets or table pipes. Code stays as is.
      const snippet = snippetFor(
        row.text,
        h.spans,
        this.config.search.snippet_chars,
        row.type === 'markdown' ? markdownMask(row.text) : undefined,
      );
      const anchor = JSON.parse(row.anchor) as Anchor;
      return {
        rank: i + 1,
        chunk_id: row.id,
        doc_id: row.doc_id,
        score: h.score,
        retrieval: h.retrieval,
        text: row.text,
        snippet: snippet.text,
        snippet_highlights: snippet.highlights,
        matched_terms: h.matched,
        citation: labelled(makeCitation(row.path, anchor, row.heading || undefined)),
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
