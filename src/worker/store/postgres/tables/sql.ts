// What a table module of the PostgreSQL store runs its statements on: the pool (each statement its own
// transaction) or the one connection of a transaction (Store.write).
import type pg from 'pg';

export type Sql = pg.Pool | pg.PoolClient;

export async function rows<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R[]> {
  return (await sql.query<R>(text, values)).rows;
}

export async function first<R extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<R | undefined> {
  return (await sql.query<R>(text, values)).rows[0];
}

/** The first column of the first row. */
export async function value<T>(sql: Sql, text: string, values: unknown[] = []): Promise<T | undefined> {
  const r = await sql.query<Record<string, T>>(text, values);
  const row = r.rows[0];
  return row ? Object.values(row)[0] : undefined;
}

/** Paths under dir sort between dir and dir with its last character bumped: an index range scan. */
export function upperBound(dir: string): string {
  return dir.slice(0, -1) + String.fromCharCode(dir.charCodeAt(dir.length - 1) + 1);
}
