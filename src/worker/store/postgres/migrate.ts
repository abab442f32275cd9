// The PostgreSQL schema, versioned as the SQLite one is: each migration in its own transaction (DDL is
// transactional here, so a process killed half-way leaves the version before), and an advisory lock
// so that of several kb processes starting on one database at once, one migrates and the others wait.
import { KbError } from '../../../shared/errors.js';
import type { Migration } from '../migrations/migration.js';
import { type PgPool, PG_SCHEMA, inTransaction } from './connect.js';
import { PG_MIGRATIONS } from './migrations/index.js';

/** pg_advisory_xact_lock's key for "migrating kb's schema" (any fixed number other tools are unlikely to take). */
const MIGRATE_LOCK = 0x6b62_0001;

/** The schema version the database is at; 0 before kb first wrote it. */
export async function pgVersion(pool: PgPool): Promise<number> {
  const t = await pool.query<{ t: string | null }>(`SELECT to_regclass('${PG_SCHEMA}.schema_version')::text AS t`);
  if (!t.rows[0]?.t) return 0;
  const r = await pool.query<{ v: number }>(`SELECT coalesce(max(version), 0) AS v FROM ${PG_SCHEMA}.schema_version`);
  return r.rows[0]?.v ?? 0;
}

/** Who connects, who owns kb's schema (null before it exists), and whether the first is, or may act as, the second. */
export async function ownsSchema(pool: PgPool): Promise<{ me: string; owner: string | null; owns: boolean }> {
  const r = await pool.query<{ me: string; owner: string | null; owns: boolean | null }>(
    `SELECT current_user AS me, pg_get_userbyid(n.nspowner) AS owner, pg_has_role(current_user, n.nspowner, 'USAGE') AS owns
     FROM (SELECT 1) x LEFT JOIN pg_namespace n ON n.nspname = $1`,
    [PG_SCHEMA],
  );
  const { me, owner, owns } = r.rows[0]!;
  return { me, owner, owns: owns === true };
}

/**
 * A team server connects as a role that owns nothing (issue 50): it cannot migrate, and says who can
 * rather than failing half-way on a refused ALTER.
 */
async function mayMigrate(pool: PgPool, from: number, to: number): Promise<void> {
  const { me, owner, owns } = await ownsSchema(pool);
  if (owner === null || owns) return;
  throw new KbError(
    'STORE_UNAVAILABLE',
    `kb's schema in this database is at version ${from} and this kb needs ${to}, but "${me}" does not own it ("${owner}" does), so kb does not change it. Its owner brings it up to date and keeps ${me}'s rights: kb --store postgresql://${owner}@…/… grant-server ${me}`,
  );
}

/** Brings the schema to the newest version; returns the versions it went from and to. */
export async function migratePg(pool: PgPool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<{ from: number; to: number }> {
  const from = await pgVersion(pool);
  const newest = migrations.at(-1)?.version ?? 0;
  if (from > newest) return { from, to: from }; // a newer kb migrated it: opening says so (store.ts)
  if (from < newest) await mayMigrate(pool, from, newest);
  for (const m of migrations) {
    if (m.version <= from) continue;
    await inTransaction(pool, async (c) => {
      await c.query('SELECT pg_advisory_xact_lock($1)', [MIGRATE_LOCK]);
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
      await c.query(
        `CREATE TABLE IF NOT EXISTS ${PG_SCHEMA}.schema_version (
           version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      // Another process may have applied it while this one waited for the lock.
      const done = await c.query('SELECT 1 FROM schema_version WHERE version = $1', [m.version]);
      if (done.rowCount) return;
      await c.query(m.sql);
      await c.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [m.version, m.name]);
    });
  }
  return { from, to: await pgVersion(pool) };
}
