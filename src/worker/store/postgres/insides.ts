// chunk_insides (migration 14): what a search by substring reads on PostgreSQL, written with each
// chunk, and filled in once for the chunks an older kb wrote — from `insides_from` down, a batch per
// transaction, the cursor moving with it, so a store opened by two processes, or stopped half-way,
// goes on from where it was.
import type { Log } from '../../log.js';
import { insideOf } from '../insides.js';
import { inTransaction, type PgPool } from './connect.js';
import { rows, type Sql, value } from './tables/sql.js';

const BATCH = 2000;

/** The insides of chunks just written (by id), those that have one. */
export async function insertInsides(sql: Sql, chunks: { id: string; inside: string }[]): Promise<void> {
  const some = chunks.filter((c) => c.inside !== '');
  if (some.length === 0) return;
  await sql.query(
    `INSERT INTO chunk_insides (rowid, inside)
     SELECT c.rowid, u.inside FROM unnest($1::text[], $2::text[]) AS u (id, inside) JOIN chunks c ON c.id = u.id`,
    [some.map((c) => c.id), some.map((c) => c.inside)],
  );
}

/** Fills in the insides of the chunks written before migration 14 (as the database's own credentials). */
export async function fillInsides(pool: PgPool, log: Log): Promise<void> {
  let filled = 0;
  for (;;) {
    const done = await inTransaction(pool, async (c) => {
      const from = await value<string>(c, "SELECT value FROM meta WHERE key = 'insides_from' FOR UPDATE");
      if (from === undefined) return true;
      const batch = await rows<{ rowid: string; text: string }>(
        c,
        'SELECT rowid, text FROM chunks WHERE rowid <= $1 ORDER BY rowid DESC LIMIT $2',
        [from, BATCH],
      );
      const some = batch.map((r) => ({ rowid: r.rowid, inside: insideOf(r.text) })).filter((r) => r.inside !== '');
      if (some.length > 0)
        await c.query(
          `INSERT INTO chunk_insides (rowid, inside) SELECT * FROM unnest($1::bigint[], $2::text[]) ON CONFLICT (rowid) DO NOTHING`,
          [some.map((r) => r.rowid), some.map((r) => r.inside)],
        );
      filled += batch.length;
      if (batch.length < BATCH) {
        await c.query("DELETE FROM meta WHERE key = 'insides_from'");
        return true;
      }
      await c.query("UPDATE meta SET value = $1 WHERE key = 'insides_from'", [String(BigInt(batch.at(-1)!.rowid) - 1n)]);
      return false;
    });
    if (done) break;
  }
  if (filled > 0) log.info({ chunks: filled }, 'what substring search reads was filled in for the chunks already indexed');
}
