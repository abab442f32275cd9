// A team server's database role (issue 50): PostgreSQL's own practice — the owner of kb's schema
// migrates it; the servers connect as a role that owns nothing and may only read and write kb's rows
// and call its functions. Row-level security is then the boundary for whoever holds a server's
// credentials too: only a table's owner may switch it off, and the server owns none. The rights are
// also given ahead for what later migrations and the owner's functions create (default privileges).
import { KbError } from '../../../shared/errors.js';
import { SERVE_APP_NAME } from './app-name.js';
import { inTransaction, PG_SCHEMA, type PgPool } from './connect.js';
import { ownsSchema } from './migrate.js';

export interface ServerRoleGranted {
  role: string;
  owner: string;
}

/** The roles owning kb's schema that a kb serve is connected as right now (pg_stat_activity). */
export async function servedAsOwner(pool: PgPool): Promise<string[]> {
  const r = await pool.query<{ usename: string }>(
    `SELECT DISTINCT usename FROM pg_stat_activity
     WHERE datname = current_database() AND application_name = $1 AND usename IS NOT NULL
       AND pg_has_role(usename, (SELECT nspowner FROM pg_namespace WHERE nspname = $2), 'USAGE')`,
    [SERVE_APP_NAME, PG_SCHEMA],
  );
  return r.rows.map((x) => x.usename);
}

/** Gives `role` what a kb server needs on the schema this pool's role owns, and nothing more. */
export async function grantServerRole(pool: PgPool, role: string): Promise<ServerRoleGranted> {
  const { me, owner, owns } = await ownsSchema(pool);
  if (owner === null) throw new KbError('STORE_UNAVAILABLE', `there is no ${PG_SCHEMA} schema in this database yet`);
  if (!owns)
    throw new KbError(
      'FORBIDDEN',
      `"${me}" does not own kb's schema ("${owner}" does): run kb grant-server with the owner's credentials in --store`,
    );
  const found = await pool.query<{ super: boolean; bypass: boolean; member: boolean }>(
    `SELECT rolsuper AS super, rolbypassrls AS bypass, pg_has_role(oid, (SELECT nspowner FROM pg_namespace WHERE nspname = $2), 'USAGE') AS member
     FROM pg_roles WHERE rolname = $1`,
    [role, PG_SCHEMA],
  );
  const r = found.rows[0];
  if (!r)
    throw new KbError(
      'INVALID_ARGUMENT',
      `there is no role "${role}": an administrator creates it first: CREATE ROLE ${role} LOGIN PASSWORD '…';`,
    );
  if (r.super || r.bypass)
    throw new KbError(
      'INVALID_ARGUMENT',
      `"${role}" is a ${r.super ? 'superuser' : 'role that bypasses row-level security'}: a server's role must be an ordinary one`,
    );
  if (r.member)
    throw new KbError(
      'INVALID_ARGUMENT',
      `"${role}" is, or may act as, "${owner}", the schema's owner: a server's role must own nothing (CREATE ROLE kb_server LOGIN PASSWORD '…'; and grant that)`,
    );
  await inTransaction(pool, async (c) => {
    const who = c.escapeIdentifier(role);
    const s = c.escapeIdentifier(PG_SCHEMA);
    for (const sql of [
      `GRANT USAGE ON SCHEMA ${s} TO ${who}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${s} TO ${who}`,
      // The audit trail is appended to and read, never rewritten.
      `REVOKE UPDATE, DELETE ON ${s}.audit FROM ${who}`,
      `GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${s} TO ${who}`,
      `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA ${s} TO ${who}`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${who}`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${who}`,
      `ALTER DEFAULT PRIVILEGES IN SCHEMA ${s} GRANT EXECUTE ON FUNCTIONS TO ${who}`,
    ])
      await c.query(sql);
  });
  return { role, owner };
}
