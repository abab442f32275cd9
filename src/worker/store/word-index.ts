// The word index as the search reads it: FTS5 over the chunks (words; their title, heading and body
// weighted), its vocabulary and statistics record, the trigram twin (substrings), and the documents a
// path glob leaves. Every statement of the word search is here, each prepared once.
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.js';
import { filterSql, type Filters } from './doc-filter.js';
import { SPACELESS } from './index-functions.js';
import { chunksVersion } from './rollbacks.js';
import { StatementCache } from './statement-cache.js';
import { textFirst } from './upgrades/fts-order.js';
import { substringsUpgrade } from './upgrades/substrings.js';
import { writtenWord } from '../words.js';
import type { Candidate, ChunkText } from './rows.js';

export type { Candidate, ChunkText } from './rows.js';

/** How far the substring path looks for one word. */
export const SUBSTRING_CAP = 5000;
/** The words with an inside that one substring search reads at most. */
const SUBSTRING_WORDS = 64;
/** How many chunks holding a stem are read to find a word written as typed. */
const WRITTEN_SAMPLE = 64;

export class WordIndex {
  private readonly stmts: StatementCache;

  constructor(readonly db: Db) {
    this.stmts = new StatementCache(db);
  }

  private prep(sql: string): Statement {
    return this.stmts.get(sql);
  }

  /** Moves on every chunk insert and delete, here or in another process, and on every rollback here. */
  generation(): number {
    return chunksVersion(this.db);
  }

  chunkCount(): number {
    return (this.prep('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
  }

  /** Where title, heading and body are in the statistics record (1 is the first column: 0 counts rows). */
  fieldColumns(): [number, number, number] {
    return textFirst(this.db) ? [2, 3, 1] : [1, 2, 3];
  }

  /** FTS5's own statistics record (rows, then tokens per column), as varints. */
  statisticsRecord(): Uint8Array | null {
    return (this.prep('SELECT block FROM chunks_fts_data WHERE id = 1').get() as { block: Buffer } | undefined)?.block ?? null;
  }

  /** How many chunks hold this index term (fts5vocab walks its whole doclist). */
  documentFrequency(term: string): number {
    return (this.prep('SELECT doc FROM chunks_vocab WHERE term = ?').get(term) as { doc: number } | undefined)?.doc ?? 0;
  }

  /** How many chunks in [lo, hi) match: FTS5 seeks there. */
  countBetween(match: string, lo: number, hi: number): number {
    return (
      this.prep('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid >= ? AND rowid < ?').get(
        match,
        BigInt(lo),
        BigInt(hi),
      ) as {
        n: number;
      }
    ).n;
  }

  rowidBounds(): { lo: number | null; hi: number | null } {
    return this.prep('SELECT min(rowid) AS lo, max(rowid) AS hi FROM chunks').get() as { lo: number | null; hi: number | null };
  }

  /** Whether some chunk matches: the first row of the doclist, one seek. */
  anyMatch(match: string): boolean {
    return this.prep('SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1').get(match) !== undefined;
  }

  /**
   * The first index term at or after these letters, in the vocabulary's order. A MATCH on `"con"*`
   * merges the doclists of every term it expands to before it yields a row (100 ms at a million
   * chunks); the vocabulary seeks.
   */
  termFrom(letters: string): string | null {
    return (this.prep('SELECT term FROM chunks_vocab WHERE term >= ? LIMIT 1').get(letters) as { term: string } | undefined)?.term ?? null;
  }

  /**
   * Whether the trigram index holds every chunk: an index from before migration 11 whose upgrade
   * (upgrades/substrings.ts) is not done. Until it is, substrings are looked for there as before.
   */
  private trigramOfAll(): boolean {
    return substringsUpgrade(this.db) !== null;
  }

  /**
   * Whether these letters are written as a word in some chunk's text, case-insensitively. The index
   * holds stems ("deploy" for deployment): the chunks holding the stem are read, up to WRITTEN_SAMPLE.
   */
  written(letters: string): boolean {
    if (SPACELESS.test(letters) || this.trigramOfAll()) {
      return this.prep('SELECT rowid FROM chunks_tri WHERE text LIKE ? LIMIT 1').get(`%${letters.replace(/[%_]/g, '')}%`) !== undefined;
    }
    return this.writtenIn(letters, letters, true);
  }

  /** Whether a word beginning with these letters is written in one of the chunks holding `within` (a word). */
  writtenStart(letters: string, within: string): boolean {
    return this.writtenIn(within, letters, false);
  }

  private writtenIn(holding: string, letters: string, whole: boolean): boolean {
    const rows = this.prep(`SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ${WRITTEN_SAMPLE}`).all(phrase(holding)) as {
      rowid: number;
    }[];
    const word = writtenWord(letters, whole);
    return this.texts(rows.map((r) => r.rowid)).some((t) => word.test(t.text) || word.test(t.heading) || word.test(t.title));
  }

  /**
   * The best `limit` chunks for a MATCH expression by FTS5's weighted bm25 (meta, the filter terms,
   * never scores); `docIds`, when a path glob filters, the documents it leaves. FTS first, always: the
   * glob is checked only on rows the index already matched.
   */
  candidates(match: string, weights: readonly [number, number, number], docIds: string[] | null, limit: number): Candidate[] {
    // bm25()'s weights go by column position: the text first since the fts upgrade (migration 13).
    const [title, heading, body] = weights;
    const w = textFirst(this.db) ? `${body}, ${title}, ${heading}, 0` : `${title}, ${heading}, ${body}, 0`;
    const sql = docIds
      ? `SELECT f.rowid AS rowid, bm25(chunks_fts, ${w}) AS raw
         FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
         WHERE chunks_fts MATCH ? AND c.doc_id IN (SELECT value FROM json_each(?)) ORDER BY raw, f.rowid LIMIT ?`
      : `SELECT rowid, bm25(chunks_fts, ${w}) AS raw FROM chunks_fts
         WHERE chunks_fts MATCH ? ORDER BY raw, rowid LIMIT ?`;
    return (docIds ? this.prep(sql).all(match, JSON.stringify(docIds), limit) : this.prep(sql).all(match, limit)) as Candidate[];
  }

  /** How many chunks match in all (within the documents a path glob leaves). */
  count(match: string, docIds: string[] | null): number {
    return docIds
      ? (
          this.prep(
            `SELECT count(*) AS n FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid
             WHERE chunks_fts MATCH ? AND c.doc_id IN (SELECT value FROM json_each(?))`,
          ).get(match, JSON.stringify(docIds)) as { n: number }
        ).n
      : (this.prep('SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?').get(match) as { n: number }).n;
  }

  /** Title, heading and text of many chunks in one query, in the order asked. */
  texts(rowids: number[]): ChunkText[] {
    if (rowids.length === 0) return [];
    const rows = this.prep(
      `SELECT c.rowid AS rowid, d.title AS title, kb_heading(c.packed, c.heading) AS heading, kb_unpack(c.packed, c.text) AS text
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(rowids)) as (ChunkText & { rowid: number })[];
    const byRow = new Map(rows.map((r) => [r.rowid, r]));
    return rowids.map((r) => byRow.get(r) ?? { title: '', heading: '', text: '' });
  }

  /** Every searchable document's id and path (a path glob is matched against them). */
  indexedPaths(): { id: string; path: string }[] {
    return this.prep("SELECT id, path FROM documents WHERE status = 'indexed'").all() as { id: string; path: string }[];
  }

  indexedCount(): number {
    return (this.prep("SELECT count(*) AS n FROM documents WHERE status = 'indexed'").get() as { n: number }).n;
  }

  /**
   * Chunks whose text holds these letters (at most SUBSTRING_CAP), within the filters. Letters of a
   * script written without spaces are looked for in the trigram index of such chunks; others inside
   * the words that have an inside (identifiers, compounds: index-functions.ts), whose chunks FTS5
   * then finds. No ESCAPE clause: with one, SQLite cannot hand LIKE to the trigram index and scans
   * every row; the search's words are letters and digits only, so they hold no LIKE wildcards anyway.
   */
  substring(letters: string, filters: Filters): number[] {
    const f = filterSql(filters);
    if (SPACELESS.test(letters) || this.trigramOfAll()) {
      const sql = f.active
        ? `SELECT t.rowid AS rowid FROM chunks_tri t CROSS JOIN chunks c ON c.rowid = t.rowid CROSS JOIN documents d ON d.id = c.doc_id
           WHERE t.text LIKE ? ${f.where} LIMIT ${SUBSTRING_CAP}`
        : `SELECT rowid FROM chunks_tri WHERE text LIKE ? LIMIT ${SUBSTRING_CAP}`;
      return (this.prep(sql).all(`%${letters}%`, ...(f.active ? f.params : [])) as { rowid: number }[]).map((r) => r.rowid);
    }
    const words = (
      this.prep(`SELECT word FROM words_tri WHERE word LIKE ? LIMIT ${SUBSTRING_WORDS}`).all(`%${letters}%`) as { word: string }[]
    ).map((r) => r.word);
    if (words.length === 0) return [];
    const match = words.map(phrase).join(' OR ');
    const sql = f.active
      ? `SELECT f.rowid AS rowid FROM chunks_fts f CROSS JOIN chunks c ON c.rowid = f.rowid CROSS JOIN documents d ON d.id = c.doc_id
         WHERE chunks_fts MATCH ? ${f.where} LIMIT ${SUBSTRING_CAP}`
      : `SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT ${SUBSTRING_CAP}`;
    return (this.prep(sql).all(match, ...(f.active ? f.params : [])) as { rowid: number }[]).map((r) => r.rowid);
  }
}

/** A word as one FTS5 string. */
function phrase(word: string): string {
  return `"${word.replace(/"/g, '""')}"`;
}
