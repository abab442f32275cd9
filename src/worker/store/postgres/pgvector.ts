// Whether the database can hold vectors. pgvector is not a trusted extension: an ordinary role cannot
// create it, so an administrator does, once per database. Without it kb searches by words and says
// how to add it.
import type { PgPool } from './connect.js';

export type VectorSupport = { ready: true; version: string } | { ready: false; /** What an administrator runs to add it. */ howTo: string };

/**
 * Whether a word search can use the word index under row-level security (migration 8). PostgreSQL
 * evaluates a condition a policy does not know to be leakproof only after the policy, so `words @@
 * query` cannot be an index condition unless its function is marked LEAKPROOF — which only a superuser
 * may do, once per database. Without it every word search reads every passage. Null when it can; else
 * what an administrator runs.
 */
export async function wordIndexBlocked(pool: PgPool): Promise<string | null> {
  const r = await pool.query<{ leakproof: boolean; db: string }>(
    "SELECT proleakproof AS leakproof, current_database() AS db FROM pg_proc WHERE oid = 'ts_match_vq(tsvector, tsquery)'::regprocedure",
  );
  const row = r.rows[0];
  if (!row || row.leakproof) return null;
  return `as a superuser, in the database ${row.db}: ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF; (row-level security keeps word searches from the word index until then: each reads every passage)`;
}

export async function vectorSupport(pool: PgPool): Promise<VectorSupport> {
  const r = await pool.query<{ installed: string | null; available: string | null; db: string }>(
    `SELECT (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS installed,
            (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS available,
            current_database() AS db`,
  );
  const row = r.rows[0]!;
  if (row.installed) return { ready: true, version: row.installed };
  const create = `as a superuser, in the database ${row.db}: CREATE EXTENSION vector;`;
  if (row.available) return { ready: false, howTo: `pgvector is on the server but not in this database: ${create}` };
  return {
    ready: false,
    howTo: `pgvector is not installed on the server: install it (Debian/Ubuntu: apt install postgresql-15-pgvector from apt.postgresql.org, or build it from its source with make && make install), then ${create}`,
  };
}
