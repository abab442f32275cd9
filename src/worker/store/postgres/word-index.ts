// The word index as a search reads it on PostgreSQL: the statistics BM25 needs (kept by the chunks'
// triggers: word_stats, chunk_totals), candidates ordered by kb's own BM25F computed in SQL
// (bm25f() below) over the chunks a tsquery matches with the filters applied in the same
// query, counts, the vocabulary, and chunk texts. What a search asks of it is the ranking's
// (search/); every statement is here.
import { fold, SPACELESS } from '../insides.js';
import type { Filters } from '../doc-filter.js';
import type { ChunkText } from '../rows.js';
import { first, rows, type Sql, value } from './tables/sql.js';
import { writtenWord } from '../../words.js';
import { tsquery } from './tsquery.js';

/**
 * The chunks a match finds, looked up in the word index first, whatever the planner guesses of the
 * filters: misled once by statistics not yet gathered after a big ingest, it walked the 13,158
 * documents of one type and asked the word index once for each (12 s instead of 10 ms).
 */
const MATCHED = `matched AS MATERIALIZED (
  SELECT rowid, doc_id, words, title_len, heading_len, body_len FROM chunks WHERE words @@ $1::tsquery)`;
/** The same for a count: without the vectors, which a count never reads (detoasting them was most of its time). */
const MATCHED_IDS = `matched AS MATERIALIZED (SELECT rowid, doc_id FROM chunks WHERE words @@ $1::tsquery)`;

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
  /** How many chunks the match and filters found in all, of which these are the best (scored queries). */
  matched?: number;
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
  // A document carrying each tag, asked of the document at hand: the planner may turn it into a
  // semi-join. The set of every document with the tags, built first, cost 30 ms a search on 128 chunks.
  for (const tag of new Set(f.tags))
    parts.push(`EXISTS (SELECT 1 FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = d.id AND t.name = ${next(tag)})`);
  return { sql: parts.join(' AND '), values };
}

/**
 * Filters over a chunk `c`, for the searches that walk the chunks a match finds. Its document is
 * joined only for a type or a language; tags and a path are asked of the chunk's document id. A
 * chunk belongs to an indexed document (a file that fails keeps no chunks), so with no filter no
 * document is read at all: the join the planner chose for a few hundred chunks was a hash of every
 * document (6 ms at 13,000 documents, growing with the library).
 */
export function chunkFilter(f: Filters, docIds: string[] | null, from: number): { join: string; where: string; values: unknown[] } {
  const parts: string[] = [];
  const values: unknown[] = [];
  const next = (v: unknown): string => {
    values.push(v);
    return `$${from + values.length - 1}`;
  };
  const join = f.type || f.lang ? 'JOIN documents d ON d.id = c.doc_id' : '';
  if (f.type) parts.push(`d.type = ${next(f.type)}`);
  if (f.lang) parts.push(`d.lang = ${next(f.lang.toLowerCase())}`);
  // A set the planner hashes: = ANY walks the whole list for every chunk.
  if (docIds) parts.push(`c.doc_id IN (SELECT unnest(${next(docIds)}::text[]))`);
  for (const tag of new Set(f.tags))
    parts.push(
      `EXISTS (SELECT 1 FROM document_tags dt JOIN tags t ON t.id = dt.tag_id WHERE dt.doc_id = c.doc_id AND t.name = ${next(tag)})`,
    );
  return { join, where: parts.length > 0 ? parts.join(' AND ') : 'true', values };
}

/**
 * kb's BM25F of `words` query words in chunk `c` (search/bm25.ts says the same in JS), in C builtins
 * only. For a single word, ts_rank_cd with normalization 0 returns the sum of the weights of the
 * word's positions, by label: given each label its field's weight over the field's normalised length
 * in this chunk, that sum is BM25F's pseudo-frequency of the word. ts_rank_cd takes weights up to 1,
 * so they are divided by $9 (labelScale) and the sum multiplied back. Saturated as
 * (k1 + 1)(1 - k1 / (tf + k1)), which names tf once (computed once), times the word's weight. Two to
 * three times faster than the PL/pgSQL function it replaced, which cut each chunk's vector down to
 * the query's words first. Parameters: $2 the words as tsqueries, $3 their weights, $4 field weights
 * (title, heading, body), $5 average field lengths, $6 k1, $7 b, $9 the label scale.
 */
function bm25f(words: number): string {
  const norm = (len: string, i: number): string => `greatest(1 - $7::float8 + $7::float8 * c.${len} / ($5::float8[])[${i}], 1e-3)`;
  // ts_rank_cd's weights are by label D, C, B, A: body, (unused), heading, title.
  const labels = `ARRAY[($4::float8[])[3] / (${norm('body_len', 3)} * $9::float8), 0,
    ($4::float8[])[2] / (${norm('heading_len', 2)} * $9::float8), ($4::float8[])[1] / (${norm('title_len', 1)} * $9::float8)]::float4[]`;
  const term = (i: number): string =>
    `($3::float8[])[${i}] * ($6::float8 + 1) * (1 - $6::float8 / ($9::float8 * ts_rank_cd(${labels}, c.words, ($2::text[])[${i}]::tsquery, 0) + $6::float8))`;
  return Array.from({ length: words }, (_, i) => term(i + 1)).join(' + ');
}

/** The largest a label's weight can be (a field of length 0): dividing by it keeps every weight at most 1. */
function labelScale(s: ScoredWords): number {
  return Math.max(...s.fieldWeights) / Math.max(1 - s.b, 1e-3);
}

/** One query word as ts_rank_cd asks for it. */
const lexemeQuery = (w: { form: string; prefix: boolean }): string => tsquery({ either: [{ form: w.form, prefix: w.prefix }] });

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
    if (scored.words.length === 0) {
      // A raw expression's words are its own: the chunks it finds, in their order.
      const f = chunkFilter(filters, docIds, 3);
      return rows<PgCandidate>(
        this.sql,
        `WITH ${MATCHED} SELECT c.rowid, 0::float8 AS score FROM matched c ${f.join}
         WHERE ${f.where} ORDER BY c.rowid LIMIT $2`,
        [match, limit, ...f.values],
      );
    }
    const f = chunkFilter(filters, docIds, 10);
    return rows<PgCandidate>(
      this.sql,
      `WITH ${MATCHED}
       SELECT c.rowid, ${bm25f(scored.words.length)} AS score, count(*) OVER () AS matched
       FROM matched c ${f.join}
       WHERE ${f.where}
       ORDER BY score DESC, c.rowid LIMIT $8`,
      [
        match,
        scored.words.map((w) => lexemeQuery(w)),
        scored.words.map((w) => w.weight),
        scored.fieldWeights,
        scored.avg.map((a) => Math.max(a, 1)),
        scored.k1,
        scored.b,
        limit,
        labelScale(scored),
        ...f.values,
      ],
    );
  }

  /** Chunks by collection ('' for none), of those the session's user may read. */
  async chunksByCollection(): Promise<Map<string, number>> {
    const r = await rows<{ c: string; n: number }>(
      this.sql,
      "SELECT coalesce(collection, '') AS c, count(*)::int AS n FROM chunks GROUP BY 1",
    );
    return new Map(r.map((x) => [x.c, x.n]));
  }

  /** The collections the session's user may read (row-level security's own answer), or all. */
  async readableCollections(): Promise<{ all: boolean; names: string[] }> {
    return (
      (await first<{ all: boolean; names: string[] }>(this.sql, 'SELECT kb_sees_all() AS "all", kb_readable() AS names')) ?? {
        all: false,
        names: [],
      }
    );
  }

  /** How many chunks `match` finds under the filters. */
  async count(match: string, filters: Filters, docIds: string[] | null): Promise<number> {
    const f = chunkFilter(filters, docIds, 2);
    return (
      (await value<number>(this.sql, `WITH ${MATCHED_IDS} SELECT count(*) FROM matched c ${f.join} WHERE ${f.where}`, [
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

  /**
   * Whether some chunk matches (a phrase: some chunk holds its words one after the other). The match
   * is planned apart from the LIMIT (a CTE is planned for all its rows and read lazily): a word absent
   * from the planner's statistics is guessed at hundreds of chunks, so with LIMIT 1 it chose to read
   * the chunks in turn until one held it — 113 ms for a word 8 of 100,000 hold, where the word index
   * answers in 5.
   */
  /**
   * Whether the session may read every passage: those it sees counted under row-level security, in
   * the same snapshot as all of them (chunk_totals, kept by the chunks' triggers).
   */
  async seesEveryChunk(): Promise<boolean> {
    const r = await this.sql.query<{ all: boolean }>('SELECT (SELECT count(*) FROM chunks) = (SELECT chunks FROM chunk_totals) AS all');
    return r.rows[0]?.all === true;
  }

  /**
   * The collections that hold a document, and whether a document is in none — one index probe each
   * (read as the engine, every collection): a user granted them all may read every passage.
   */
  async filedIn(): Promise<{ names: string[]; unfiled: boolean }> {
    const r = await this.sql.query<{ names: string[]; unfiled: boolean }>(
      `SELECT coalesce((SELECT array_agg(c.name) FROM collections c WHERE EXISTS (SELECT 1 FROM documents d WHERE d.collection = c.name)), '{}') AS names,
         EXISTS (SELECT 1 FROM documents WHERE collection IS NULL) AS unfiled`,
    );
    return r.rows[0] ?? { names: [], unfiled: false };
  }

  async anyMatch(match: string): Promise<boolean> {
    return (
      (await this.sql.query('WITH m AS MATERIALIZED (SELECT 1 FROM chunks WHERE words @@ $1::tsquery) SELECT 1 FROM m LIMIT 1', [match]))
        .rowCount === 1
    );
  }

  /**
   * Whether these letters are written as a word (case-insensitively) in one of the first chunks
   * holding their stem, as the SQLite store reads it (WRITTEN_SAMPLE chunks): "validely" shares a stem
   * with "valid", but nobody wrote it.
   */
  async writtenAs(stem: string, letters: string, whole = true): Promise<boolean> {
    const r = await rows<{ title: string; heading: string; text: string }>(
      this.sql,
      // Planned apart from the LIMIT, as anyMatch is.
      `WITH m AS MATERIALIZED (SELECT doc_id, heading, text FROM chunks WHERE words @@ $1::tsquery)
       SELECT d.title, m.heading, m.text FROM (SELECT * FROM m LIMIT ${WRITTEN_SAMPLE}) m JOIN documents d ON d.id = m.doc_id`,
      [stem],
    );
    const word = writtenWord(letters, whole);
    return r.some((t) => word.test(t.text) || word.test(t.heading) || word.test(t.title));
  }

  /** The share of indexed documents the filters leave (for estimates). */
  async documentShare(filters: Filters, docIds: string[] | null): Promise<number> {
    const f = filterWhere(filters, docIds, 1);
    const r = await rows<{ kept: number; total: number }>(
      this.sql,
      // Two counts, not one with a FILTER: a filter's EXISTS becomes a semi-join only in a WHERE.
      `SELECT (SELECT count(*) FROM documents d WHERE ${f.sql}) AS kept,
              (SELECT count(*) FROM documents d WHERE d.status = 'indexed') AS total`,
      f.values,
    );
    const x = r[0];
    return x && x.total > 0 ? x.kept / x.total : 0;
  }

  /**
   * Chunks holding these letters inside a word that has an inside, or in a spaceless script's text
   * (as SQLite's words_tri and chunks_tri find them), at most `cap`. A scan of chunk_insides: narrow,
   * where a scan of the chunks' texts read every passage.
   */
  async substring(letters: string, filters: Filters, docIds: string[] | null, cap: number): Promise<number[]> {
    const f = chunkFilter(filters, docIds, 3);
    // chunk_insides holds what substring search reads (store/insides.ts): the compound words of a
    // chunk (folded, as the letters are here), or the whole text of one in a spaceless script.
    const r = await rows<{ rowid: number }>(
      this.sql,
      `SELECT c.rowid FROM chunk_insides i JOIN chunks c ON c.rowid = i.rowid ${f.join}
       WHERE i.inside ILIKE $1 ESCAPE '\\' AND ${f.where} ORDER BY c.rowid LIMIT $2`,
      [likeOf(SPACELESS.test(letters) ? letters : fold(letters)), cap, ...f.values],
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
