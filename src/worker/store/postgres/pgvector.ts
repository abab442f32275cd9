// Whether the database can hold vectors. pgvector is not a trusted extension: an ordinary role cannot
// create it, so an administrator does, once per database. Without it kb searches by words and says
// how to add it.
import type { PgPool } from './connect.js';

export type VectorSupport = { ready: true; version: string } | { ready: false; /** What an administrator runs to add it. */ howTo: string };

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
