// A team's users, the grants of collections, and the audit trail, on PostgreSQL (migration 7).
import type { AccountsPort, Sight } from '../../port.js';
import type { AuditRow, UserRow } from '../../rows.js';
import { inTransaction, type PgPool } from '../connect.js';
import { first, rows, type Sql } from './sql.js';

const USER = 'name, role, token_id, token_hash, created_at';

export class PgAccounts implements AccountsPort {
  constructor(
    private readonly sql: Sql,
    /** The pool a write takes its transaction's connection from (absent inside one). */
    private readonly pool: PgPool | null = null,
  ) {}

  async addUser(u: UserRow): Promise<boolean> {
    const r = await this.sql.query(`INSERT INTO users (${USER}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`, [
      u.name,
      u.role,
      u.token_id,
      u.token_hash,
      u.created_at,
    ]);
    return r.rowCount === 1;
  }
  users(): Promise<UserRow[]> {
    return rows<UserRow>(this.sql, `SELECT ${USER} FROM users ORDER BY name`);
  }
  user(name: string): Promise<UserRow | undefined> {
    return first<UserRow>(this.sql, `SELECT ${USER} FROM users WHERE name = $1`, [name]);
  }
  byTokenId(tokenId: string): Promise<UserRow | undefined> {
    return first<UserRow>(this.sql, `SELECT ${USER} FROM users WHERE token_id = $1`, [tokenId]);
  }
  async removeUser(name: string): Promise<boolean> {
    await this.sql.query('DELETE FROM collection_grants WHERE grantee = $1', [name]);
    return ((await this.sql.query('DELETE FROM users WHERE name = $1', [name])).rowCount ?? 0) === 1;
  }
  async setToken(name: string, tokenId: string, tokenHash: string): Promise<boolean> {
    const r = await this.sql.query('UPDATE users SET token_id = $2, token_hash = $3 WHERE name = $1', [name, tokenId, tokenHash]);
    return r.rowCount === 1;
  }
  async grant(collection: string, grantee: string): Promise<boolean> {
    const r = await this.sql.query('INSERT INTO collection_grants (collection, grantee) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      collection,
      grantee,
    ]);
    return r.rowCount === 1;
  }
  async revoke(collection: string, grantee: string): Promise<boolean> {
    const r = await this.sql.query('DELETE FROM collection_grants WHERE collection = $1 AND grantee = $2', [collection, grantee]);
    return r.rowCount === 1;
  }
  grants(): Promise<{ collection: string; grantee: string }[]> {
    return rows(this.sql, 'SELECT collection, grantee FROM collection_grants ORDER BY collection, grantee');
  }
  async record(e: AuditRow): Promise<void> {
    await this.sql.query('INSERT INTO audit (at, actor, action, target, detail) VALUES ($1, $2, $3, $4, $5)', [
      e.at,
      e.actor,
      e.action,
      e.target,
      e.detail,
    ]);
  }
  trail(limit: number): Promise<AuditRow[]> {
    return rows<AuditRow>(this.sql, 'SELECT at, actor, action, target, detail FROM audit ORDER BY id DESC LIMIT $1', [limit]);
  }
  async sight(): Promise<Sight> {
    const r = await this.sql.query<Sight>(
      'SELECT kb_sees_all() AS "all", kb_readable() AS readable, ARRAY(SELECT name FROM collections WHERE kb_writable(name)) AS writable',
    );
    return r.rows[0]!;
  }
  write<T>(fn: (a: AccountsPort) => Promise<T>): Promise<T> {
    if (!this.pool) return fn(this);
    return inTransaction(this.pool, (c) => fn(new PgAccounts(c)));
  }
}
