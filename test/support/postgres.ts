// A throwaway PostgreSQL cluster for the tests: initdb in a temp folder, started on a free loopback
// port, an ordinary login role for kb (never a superuser), one database per test with pgvector created
// in it by the superuser (pgvector is not a trusted extension), removed after. initdb refuses root, so
// as root the cluster runs as the postgres user (runuser). On a machine without PostgreSQL the tests
// skip, saying so; KB_REQUIRE_PG=1 (.ci/run) makes that a failure instead.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The role kb connects as in the tests: may log in and own databases, nothing more. */
export const KB_ROLE = 'kb_test';
/** A team server's role (README: a role that owns nothing), given its rights by kb grant-server. */
export const SERVER_ROLE = 'kb_server';

let saidSkipped = false;

/** Where initdb and pg_ctl are, or null (pg_config names the server's own; Debian keeps them off PATH). */
export function pgBinDir(): string | null {
  const candidates: string[] = [];
  const fromConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromConfig.status === 0) candidates.push(fromConfig.stdout.trim());
  for (const v of ['17', '16', '15']) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  return candidates.find((d) => existsSync(join(d, 'initdb')) && existsSync(join(d, 'pg_ctl'))) ?? null;
}

/** Whether the PostgreSQL tests can run here; says once when they skip, throws under KB_REQUIRE_PG=1. */
export function postgresAvailable(): boolean {
  const bin = pgBinDir();
  if (bin) return true;
  if (process.env.KB_REQUIRE_PG === '1')
    throw new Error('KB_REQUIRE_PG=1, but no PostgreSQL server is installed (apt-get install postgresql-15 postgresql-server-dev-15)');
  if (!saidSkipped) console.warn('SKIPPED: the PostgreSQL store tests — no PostgreSQL server here (initdb and pg_ctl not found)');
  saidSkipped = true;
  return false;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a server program as the cluster's owner: the postgres user when we are root. */
function runAsOwner(program: string, args: string[]): string {
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args]] : [program, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export interface PgCluster {
  port: number;
  dir: string;
  /**
   * A new empty database owned by the kb role, set up as the README's administrator does: pgvector
   * created in it unless `vector: false`, the word-match function marked leakproof unless
   * `leakproof: false`. Its URL for kb.
   */
  database(opts?: { vector?: boolean; leakproof?: boolean }): Promise<string>;
  /** The same database's URL for SERVER_ROLE (which has no rights there until kb grant-server gives them). */
  asServer(url: string): string;
  /** Runs SQL as the superuser in a database (the administrator's part of a set-up). */
  admin(db: string, sql: string): Promise<void>;
  /** A hot standby streaming from this cluster (pg_basebackup -R), on a port of its own. */
  standby(): Promise<PgStandby>;
  stop(): void;
}

export interface PgStandby {
  port: number;
  /** The same database's URL on the standby. */
  urlOf(primaryUrl: string): string;
  /** Resolves once the standby has replayed everything the primary had written when asked. */
  caughtUp(): Promise<void>;
  stop(): void;
}

let databases = 0;

/** `settings`: server settings beyond the defaults (a bench gives shared_buffers what a server would have). */
export async function startCluster(settings: Record<string, string> = {}): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('no PostgreSQL server here');
  const dir = mkdtempSync(join(tmpdir(), 'kb-pg-'));
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const data = join(dir, 'data');
  runAsOwner(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync']);
  const port = await freePort();
  const extra = Object.entries(settings)
    .map(([k, v]) => ` -c ${k}=${v}`)
    .join('');
  const opts = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200${extra}`;
  runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-l', join(dir, 'log'), '-w', '-o', opts, 'start']);
  const url = (db: string, user: string): string => `postgresql://${user}@127.0.0.1:${port}/${db}`;
  const admin = async (db: string, sql: string): Promise<void> => {
    const c = new pg.Client({ connectionString: url(db, 'postgres') });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin('postgres', `CREATE ROLE ${KB_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS`);
  await admin('postgres', `CREATE ROLE ${SERVER_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS`);
  const standby = async (): Promise<PgStandby> => {
    const sdata = join(dir, `standby-${Date.now()}`);
    runAsOwner(join(bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-D', sdata, '-R', '-X', 'stream']);
    const sport = await freePort();
    // A hot standby needs at least the primary's max_connections (and its other settings).
    const sopts = `-p ${sport} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c max_connections=200${extra} -c hot_standby=on`;
    runAsOwner(join(bin, 'pg_ctl'), ['-D', sdata, '-l', join(dir, `log-${sport}`), '-w', '-o', sopts, 'start']);
    const lsnOf = async (p: number, sql: string): Promise<string> => {
      const c = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${p}/postgres` });
      await c.connect();
      try {
        return (await c.query<{ lsn: string }>(sql)).rows[0]!.lsn;
      } finally {
        await c.end();
      }
    };
    return {
      port: sport,
      urlOf: (primaryUrl) => primaryUrl.replace(`:${port}/`, `:${sport}/`),
      async caughtUp() {
        const target = await lsnOf(port, 'SELECT pg_current_wal_lsn()::text AS lsn');
        for (let i = 0; i < 200; i++) {
          const c = new pg.Client({ connectionString: `postgresql://postgres@127.0.0.1:${sport}/postgres` });
          await c.connect();
          const done = (await c.query<{ ok: boolean }>('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target])).rows[0]!.ok;
          await c.end();
          if (done) return;
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error('the standby did not catch up in 10 s');
      },
      stop() {
        runAsOwner(join(bin, 'pg_ctl'), ['-D', sdata, '-m', 'immediate', '-w', 'stop']);
      },
    };
  };
  return {
    port,
    dir,
    admin,
    standby,
    asServer: (u) => u.replace(`//${KB_ROLE}@`, `//${SERVER_ROLE}@`),
    async database(o = {}) {
      const name = `kb_${process.pid}_${++databases}`;
      await admin('postgres', `CREATE DATABASE ${name} OWNER ${KB_ROLE}`);
      if (o.vector !== false) await admin(name, 'CREATE EXTENSION vector');
      if (o.leakproof !== false) await admin(name, 'ALTER FUNCTION ts_match_vq(tsvector, tsquery) LEAKPROOF');
      return url(name, KB_ROLE);
    },
    stop() {
      try {
        runAsOwner(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
