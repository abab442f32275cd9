// Opening the PostgreSQL store: a connection pool whose sessions search kb's own schema first, and
// what kb says when it cannot use the server — down, refusing the role, a missing database, a role
// without rights, or a superuser (whose sessions would skip the row-level security a team relies on).
import pg from 'pg';
import { KbError } from '../../../shared/errors.js';
import { currentActor } from '../../acting.js';
import { shownUrl } from './url.js';

export { isPostgresUrl, shownUrl } from './url.js';

// bigint columns (rowids, sizes, counts) as numbers: kb's never reach 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/** kb's tables live in their own schema, so a database can hold other things too. */
export const PG_SCHEMA = 'kb';

export type PgPool = pg.Pool;
export type PgClient = pg.PoolClient;

/** A server's refusal in words a person can act on, with the SQL or package that fixes it. */
export function storeError(e: unknown, url: string): KbError {
  if (e instanceof KbError) return e;
  const err = e as { code?: string; message?: string };
  const where = shownUrl(url);
  let role = '';
  let db = '';
  try {
    const u = new URL(url);
    role = decodeURIComponent(u.username) || '(your user name)';
    db = decodeURIComponent(u.pathname.slice(1)) || role;
  } catch {
    // shownUrl already says the URL is unreadable
  }
  const say = (m: string): KbError => new KbError('STORE_UNAVAILABLE', m, { cause: e });
  switch (err.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EHOSTUNREACH':
    case 'ETIMEDOUT':
    case '57P03': // cannot connect now (starting up, shutting down)
      return say(
        `cannot reach the PostgreSQL server at ${where} (${err.message ?? err.code}): is it running, and is the host and port right?`,
      );
    case '28P01':
    case '28000':
      return say(
        `PostgreSQL at ${where} refused the role "${role}": ${err.message ?? ''}. Check the user name and password in the URL, and pg_hba.conf`,
      );
    case '3D000':
      return say(
        `the database "${db}" does not exist on ${where}: create it for kb's role, as an administrator: CREATE DATABASE ${db} OWNER ${role};`,
      );
    case '42501':
      return say(
        `the role "${role}" lacks a right kb needs on ${where} (${err.message ?? ''}): kb creates its own tables, so give it a database it owns: CREATE DATABASE ${db} OWNER ${role};`,
      );
    default:
      return say(`the PostgreSQL store at ${where} failed: ${err.message ?? String(e)}`);
  }
}

/**
 * A pool on the store's URL. Checked before anything is written: the server answers, and the role is
 * not a superuser nor one that bypasses row-level security (kb is for ordinary roles).
 */
/** The session's `kb.user` for whoever holds the database's own credentials: they see and change everything. */
export const DATABASE_ACTOR = '@admin';

type Checkout = (err: Error | undefined, client: PgClient | undefined, done: (release?: unknown) => void) => void;

/**
 * A pool whose connections act for whoever the work is for (acting.ts): a connection handed out
 * says first whom it now serves, if that is not whom it served last. Read when the connection is
 * asked for — in the caller's own async context — never when the pool gets round to it, which may
 * be in another request's. `pool.query` checks out through here too.
 */
class ActingPool extends pg.Pool {
  private readonly serving = new WeakMap<PgClient, string>();

  constructor(
    config: pg.PoolConfig,
    private readonly owner: string,
  ) {
    super(config);
  }

  override connect(): Promise<PgClient>;
  override connect(callback: Checkout): void;
  override connect(callback?: Checkout): Promise<PgClient> | void {
    const actor = currentActor() ?? this.owner;
    const client = super.connect().then((c) => this.actFor(c, actor));
    if (!callback) return client;
    client.then(
      (c) => callback(undefined, c, (release) => c.release(release as Error | boolean | undefined)),
      (e: Error) => callback(e, undefined, () => undefined),
    );
  }

  private async actFor(c: PgClient, actor: string): Promise<PgClient> {
    // A new connection serves the owner its options name; any other changes it, for the session.
    if ((this.serving.get(c) ?? this.owner) === actor) return c;
    try {
      // Without parameters: one message of the simple protocol, not a parse, bind and execute.
      await c.query(`SELECT set_config('kb.user', ${c.escapeLiteral(actor)}, false)`);
    } catch (e) {
      c.release(e as Error); // a connection that may still act for someone else is not reused
      throw e;
    }
    this.serving.set(c, actor);
    return c;
  }
}

export async function openPool(
  url: string,
  /** `roleChecked`: another pool on this URL checked the role already; this one connects when first used. */
  opts: { max?: number; actor?: string; roleChecked?: boolean; statementTimeoutMs?: number | null } = {},
): Promise<PgPool> {
  const owner = opts.actor ?? DATABASE_ACTOR;
  const pool = new ActingPool(
    {
      connectionString: url,
      max: opts.max ?? 8,
      // Who the session acts for (row-level security, migration 8) when no request names a user:
      // the database's own credentials, unless the caller says otherwise.
      options: `-c search_path=${PG_SCHEMA},public -c kb.user=${owner}${opts.statementTimeoutMs ? ` -c statement_timeout=${opts.statementTimeoutMs}` : ''}`,
      connectionTimeoutMillis: 10_000,
    },
    owner,
  );
  // An idle connection the server drops (a restart) must not crash the process: the next query reconnects.
  pool.on('error', () => undefined);
  if (opts.roleChecked) return pool;
  try {
    const r = await pool.query<{ rolsuper: boolean; rolbypassrls: boolean; rolname: string }>(
      'SELECT rolname, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    const me = r.rows[0];
    if (me && (me.rolsuper || me.rolbypassrls)) {
      throw new KbError(
        'STORE_UNAVAILABLE',
        `kb does not connect to ${shownUrl(url)} as "${me.rolname}": it is a ${me.rolsuper ? 'superuser' : 'role that bypasses row-level security'}, whose sessions skip the checks that keep each person to the documents they were granted. Connect as an ordinary role: CREATE ROLE kb LOGIN PASSWORD '…'; CREATE DATABASE kb OWNER kb;`,
      );
    }
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw storeError(e, url);
  }
  return pool;
}

/** Runs `work` in one transaction on one connection; rolled back if it throws. */
export async function inTransaction<T>(pool: PgPool, work: (c: PgClient) => Promise<T>): Promise<T> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const out = await work(c);
    await c.query('COMMIT');
    return out;
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw e;
  } finally {
    c.release();
  }
}
