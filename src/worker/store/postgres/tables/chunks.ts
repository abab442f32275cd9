// The chunks table on PostgreSQL: each chunk written with its words (word-vector.ts), a document's
// chunks in one statement so the word statistics are counted once for them.
import { insideOf } from '../../insides.js';
import { insertInsides } from '../insides.js';
import type { ChunksPort } from '../../port.js';
import type { ChunkRow, NewChunk } from '../../rows.js';
import { wordVector } from '../word-vector.js';
import { first, rows, type Sql, value } from './sql.js';

const COLUMNS = 'rowid, id, doc_id, ordinal, heading, text, anchor, chunker_version';

/** PostgreSQL's text cannot hold NUL: it never means anything in a passage. */
const noNul = (s: string): string => (s.includes('\u0000') ? s.replace(/\u0000/g, '') : s);

export class PgChunks implements ChunksPort {
  constructor(private readonly sql: Sql) {}

  async replace(docId: string, chunks: NewChunk[]): Promise<void> {
    await this.sql.query('DELETE FROM chunks WHERE doc_id = $1', [docId]);
    await this.insert(docId, chunks);
  }

  async insert(docId: string, chunks: NewChunk[]): Promise<void> {
    if (chunks.length === 0) return;
    const title = (await value<string>(this.sql, 'SELECT title FROM documents WHERE id = $1', [docId])) ?? '';
    const cols = { id: [] as string[], ordinal: [] as number[], heading: [] as string[], text: [] as string[], anchor: [] as string[] };
    const more = { version: [] as number[], words: [] as string[], t: [] as number[], h: [] as number[], b: [] as number[] };
    for (const c of chunks) {
      const heading = noNul(c.heading);
      const text = noNul(c.text);
      const v = wordVector(title, heading, text);
      cols.id.push(c.id);
      cols.ordinal.push(c.ordinal);
      cols.heading.push(heading);
      cols.text.push(text);
      cols.anchor.push(JSON.stringify(c.anchor));
      more.version.push(c.chunker_version);
      more.words.push(v.literal);
      more.t.push(v.lengths[0]);
      more.h.push(v.lengths[1]);
      more.b.push(v.lengths[2]);
    }
    await this.sql.query(
      `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version, words, title_len, heading_len, body_len)
       SELECT u.id, $1, u.ordinal, u.heading, u.text, u.anchor, u.version, u.words, u.t, u.h, u.b
       FROM unnest($2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::int[], $8::tsvector[], $9::int[], $10::int[], $11::int[])
         AS u (id, ordinal, heading, text, anchor, version, words, t, h, b)`,
      [docId, cols.id, cols.ordinal, cols.heading, cols.text, cols.anchor, more.version, more.words, more.t, more.h, more.b],
    );
    await insertInsides(
      this.sql,
      cols.id.map((id, i) => ({ id, inside: insideOf(cols.text[i]!) })),
    );
  }

  byId(id: string): Promise<ChunkRow | undefined> {
    return first<ChunkRow>(this.sql, `SELECT ${COLUMNS} FROM chunks WHERE id = $1`, [id]);
  }
  ofDoc(docId: string): Promise<ChunkRow[]> {
    return rows<ChunkRow>(this.sql, `SELECT ${COLUMNS} FROM chunks WHERE doc_id = $1 ORDER BY ordinal`, [docId]);
  }
  async count(docId: string): Promise<number> {
    return (await value<number>(this.sql, 'SELECT count(*) FROM chunks WHERE doc_id = $1', [docId])) ?? 0;
  }
  /** Counted under row-level security: what the session may read. */
  async visible(): Promise<number> {
    return Number((await value<string>(this.sql, 'SELECT count(*) FROM chunks')) ?? 0);
  }
  /** Counted by the chunks' triggers (chunk_totals), not by scanning them. */
  async total(): Promise<number> {
    return (await value<number>(this.sql, 'SELECT chunks FROM chunk_totals')) ?? 0;
  }
  async nextOrdinal(docId: string): Promise<number> {
    return ((await value<number>(this.sql, 'SELECT coalesce(max(ordinal), -1) FROM chunks WHERE doc_id = $1', [docId])) ?? -1) + 1;
  }
  /** The title's words are in every chunk's vector: written again from the document's current title. */
  async refreshWords(docId: string): Promise<void> {
    const title = (await value<string>(this.sql, 'SELECT title FROM documents WHERE id = $1', [docId])) ?? '';
    const chunks = await rows<{ rowid: number; heading: string; text: string }>(
      this.sql,
      'SELECT rowid, heading, text FROM chunks WHERE doc_id = $1',
      [docId],
    );
    if (chunks.length === 0) return;
    const vectors = chunks.map((c) => wordVector(title, c.heading, c.text));
    await this.sql.query(
      `UPDATE chunks c SET words = u.words, title_len = u.t
       FROM unnest($1::bigint[], $2::tsvector[], $3::int[]) AS u (rowid, words, t)
       WHERE c.rowid = u.rowid AND c.words IS DISTINCT FROM u.words`,
      [chunks.map((c) => c.rowid), vectors.map((v) => v.literal), vectors.map((v) => v.lengths[0])],
    );
  }
}
