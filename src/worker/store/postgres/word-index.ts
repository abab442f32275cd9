// The word index as a search reads it on PostgreSQL: the statistics BM25 needs (kept by the chunks'
// triggers: word_stats, chunk_totals), candidates ordered by kb's own BM25F computed in SQL
// (kb_bm25f, migration 1) over the chunks a tsquery matches with the filters applied in the same
// query, counts, the vocabulary, and chunk texts. What a search asks of it is the ranking's
// (search/); every statement is here.
import type { Filters } from '../doc-filter.js';
import type { ChunkText } from '../rows.js';
import { rows, type Sql, value } from './tables/sql.js';

/**
 * The chunks a match finds, looked up in the word index first, whatever the planner guesses of the
 * filters: misled once by statistics not yet gathered after a big ingest, it walked the 13,158
 * documents of one type and asked the word index once for each (12 s instead of 10 ms).
 */
const MATCHED = `matched AS MATERIALIZED (
  SELECT rowid, doc_id, words, title_len, heading_len, body_len FROM chunks WHERE words @@ $1::tsquery)`;

/** How many chunks holding a stem are read to find a word written as typed (as on SQLite). */
const WRITTEN_SAMPLE = 64;

export interface PgTotals {
  /** Chunks in the index. */
  n: number;
  /** Average tokens per chunk in the title, heading and body. */
  avg: [number, number, number];
  /** Moves with every change of the chunks, by any process. */
  generation: number;
}

/** How a candidate's BM25F is computed: the query's words with their weights, and the field model. */
export interface ScoredWords {
  words: { form: string; weight: number; prefix: boolean }[];
  fieldWeights: [number, number, number];
  avg: [number, number, number];
  k1: number;
  b: number;
}

export interface PgCandidate {
  rowid: number;
  /** kb's BM25F for the query's words (higher is better). */
  score: number;
}

/** A chunk's texts with its rowid. */
export type RowText = ChunkText & { rowid: number };

/** Filters as SQL over `d` (the chunk's document), numbered from `$from`; the values to pass. */
export function filterWhere(f: Filters, docIds: string[] | null, from: number): { sql: string; values: unknown[] } {
  const parts = ["d.status = 'indexed'"];
  const values: unknown[] = [];
  const next = (v: unknown): string => {
    values.push(v);
    return `$${from + values.length - 1}`;
  };
  if (f.type) parts.push(`d.type = ${next(f.type)}`);
  if (f.lang) parts.push(`d.lang = ${next(f.lang.toLowerCase())}`);
  if (docIds) parts.push(`d.id = ANY (${next(docIds)}::text[])`);
  if (f.tags.length > 0) {
    const tags = [...new Set(f.tags)];
    parts.push(
      `d.id IN (SELECT dt.doc_id FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
        WHERE t.name = ANY (${next(tags)}::text[]) GROUP BY dt.doc_id HAVING count(*) = ${next(tags.length)})`,
    );
  }
  return { sql: parts.join(' AND '), values };
}

export class PgWordIndex {
  constructor(private readonly sql: Sql) {}

  async totals(): Promise<PgTotals> {
    const r = await rows<{ chunks: number; title_len: number; heading_len: number; body_len: number; generation: number }>(
      this.sql,
      'SELECT chunks, title_len, heading_len, body_len, generation FROM chunk_totals',
    );
    const t = r[0] ?? { chunks: 0, title_len: 0, heading_len: 0, body_len: 0, generation: 0 };
    const avg = (total: number): number => (t.chunks > 0 ? total / t.chunks : 1);
    return { n: t.chunks, avg: [avg(t.title_len), avg(t.heading_len), avg(t.body_len)], generation: t.generation };
  }

  async generation(): Promise<number> {
    return (await value<number>(this.sql, 'SELECT generation FROM chunk_totals')) ?? 0;
  }

  /** How many chunks hold each word (absent: none). */
  async docFreq(words: string[]): Promise<Map<string, number>> {
    if (words.length === 0) return new Map();
    const r = await rows<{ word: string; chunks: number }>(this.sql, 'SELECT word, chunks FROM word_stats WHERE word = ANY ($1::text[])', [
      [...new Set(words)],
    ]);
    return new Map(r.map((x) => [x.word, x.chunks]));
  }

  /** Whether some indexed word begins with `prefix` (a word still being typed). */
  async begins(prefix: string): Promise<boolean> {
    return (
      (await value<boolean>(this.sql, 'SELECT EXISTS (SELECT 1 FROM word_stats WHERE word >= $1 AND word < $2)', [
        prefix,
        after(prefix),
      ])) === true
    );
  }

  /**
   * The best `limit` chunks `match` finds, by BM25F of `scored`'s words, filters applied in the same
   * query. `match` is a tsquery in its text form, its lexemes quoted (tsquery.ts): cast, never parsed
   * by a text search configuration, so it matches the stems kb wrote.
   */
  async candidates(match: string, scored: ScoredWords, filters: Filters, docIds: string[] | null, limit: number): Promise<PgCandidate[]> {
    const f = filterWhere(filters, docIds, 11);
    return rows<PgCandidate>(
      this.sql,
      `WITH ${MATCHED}
       SELECT c.rowid, kb_bm25f(c.words, c.title_len, c.heading_len, c.body_len, $2::text[], $3::float8[], $4::boolean[],
                $5::float8[], $6::float8[], $7::float8, $8::float8) AS score
       FROM matched c JOIN documents d ON d.id = c.doc_id
       WHERE ${f.sql}
       ORDER BY score DESC, c.rowid LIMIT $9 OFFSET $10`,
      [
        match,
        scored.words.map((w) => w.form),
        scored.words.map((w) => w.weight),
        scored.words.map((w) => w.prefix),
        scored.fieldWeights,
        scored.avg,
        scored.k1,
        scored.b,
        limit,
        0,
        ...f.values,
      ],
    );
  }

  /** How many chunks `match` finds under the filters. */
  async count(match: string, filters: Filters, docIds: string[] | null): Promise<number> {
    const f = filterWhere(filters, docIds, 2);
    return (
      (await value<number>(this.sql, `WITH ${MATCHED} SELECT count(*) FROM matched c JOIN documents d ON d.id = c.doc_id WHERE ${f.sql}`, [
        match,
        ...f.values,
      ])) ?? 0
    );
  }

  /** Title, heading and text of many chunks, in the order asked. */
  async texts(rowids: number[]): Promise<RowText[]> {
    if (rowids.length === 0) return [];
    const r = await rows<RowText>(
      this.sql,
      `SELECT c.rowid, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid = ANY ($1::bigint[])`,
      [rowids],
    );
    const byId = new Map(r.map((t) => [t.rowid, t]));
    return rowids.map((id) => byId.get(id) ?? { rowid: id, title: '', heading: '', text: '' });
  }

  /** Whether some chunk matches (a phrase: some chunk holds its words one after the other). */
  async anyMatch(match: string): Promise<boolean> {
    return (await this.sql.query('SELECT 1 FROM chunks WHERE words @@ $1::tsquery LIMIT 1', [match])).rowCount === 1;
  }

  /**
   * Whether these letters are written as a word (case-insensitively) in one of the first chunks
   * holding their stem, as the SQLite store reads it (WRITTEN_SAMPLE chunks): "validely" shares a stem
   * with "valid", but nobody wrote it.
   */
  async writtenAs(stem: string, letters: string): Promise<boolean> {
    const r = await rows<{ title: string; heading: string; text: string }>(
      this.sql,
      `SELECT d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.words @@ $1::tsquery LIMIT ${WRITTEN_SAMPLE}`,
      [stem],
    );
    const word = new RegExp(`(?<![\\p{L}\\p{N}])${letters.replace(/[^\p{L}\p{N}]/gu, '')}(?![\\p{L}\\p{N}])`, 'iu');
    return r.some((t) => word.test(t.text) || word.test(t.heading) || word.test(t.title));
  }

  /** The share of indexed documents the filters leave (for estimates). */
  async documentShare(filters: Filters, docIds: string[] | null): Promise<number> {
    const f = filterWhere(filters, docIds, 1);
    const r = await rows<{ kept: number; total: number }>(
      this.sql,
      `SELECT count(*) FILTER (WHERE ${f.sql}) AS kept, count(*) FILTER (WHERE d.status = 'indexed') AS total FROM documents d`,
      f.values,
    );
    const x = r[0];
    return x && x.total > 0 ? x.kept / x.total : 0;
  }

  /**
   * Chunks whose text holds these letters (CJK, letters inside identifiers), at most `cap`. A scan
   * of the texts the filters leave: PostgreSQL keeps no trigram index of them (yet).
   */
  async substring(letters: string, filters: Filters, docIds: string[] | null, cap: number): Promise<number[]> {
    const f = filterWhere(filters, docIds, 3);
    const r = await rows<{ rowid: number }>(
      this.sql,
      `SELECT c.rowid FROM chunks c JOIN documents d ON d.id = c.doc_id
       WHERE c.text ILIKE $1 ESCAPE '\\' AND ${f.sql} ORDER BY c.rowid LIMIT $2`,
      [likeOf(letters), cap, ...f.values],
    );
    return r.map((x) => x.rowid);
  }

  /** The indexed documents' ids and paths (a path glob is matched against them). */
  indexedPaths(): Promise<{ id: string; path: string }[]> {
    return rows<{ id: string; path: string }>(this.sql, "SELECT id, path FROM documents WHERE status = 'indexed'");
  }
}

/** LIKE's pattern for text holding these letters: its own wildcards are letters here. */
const likeOf = (letters: string): string => `%${letters.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The first string after every string that begins with `prefix`, in byte order. */
function after(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}
