// A team's accounts (issue 35): users with a role and a token, collections granted to users or to
// everyone (@all), and the trail of who changed which. They live in the shared store (PostgreSQL);
// one person's SQLite index has none. Whoever holds the database's own credentials (the CLI run
// with them) acts as an administrator, named @admin in the trail.
import { timingSafeEqual } from 'node:crypto';
import { resolve, sep } from 'node:path';
import { realpath } from 'node:fs/promises';
import type { Confinement } from '../ingest/confine.js';
import { asEngine, currentActor } from '../acting.js';
import type { Place } from './team-paths.js';
import { KbError } from '../../shared/errors.js';
import type { Core } from '../core.js';
import type { AccountsPort } from '../store/port.js';
import type { AuditRow, Role } from '../store/rows.js';
import { digestOf, hashSecret, newToken, parseToken, secretMatches } from './tokens.js';

/** Who made a change from the database's own credentials. */
export const DATABASE_ADMIN = '@admin';
/** The grantee that means every user. */
export const EVERYONE = '@all';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** Tokens checked once, remembered by their account's stored hash: scrypt is paid at the first request, not each. */
const KNOWN_MAX = 1000;

export interface Account {
  name: string;
  role: Role;
}

export class AccountService {
  private readonly known = new Map<string, { hash: string; digest: Buffer }>();

  constructor(private readonly core: Core) {}

  private get port(): AccountsPort {
    const a = this.core.store.accounts;
    if (!a)
      throw new KbError(
        'UNSUPPORTED',
        'accounts live in a shared store: run this with --store postgresql://… (one data dir’s own index has no users: whoever holds the machine is its one user)',
      );
    return a;
  }

  private static name(name: string): string {
    if (!NAME.test(name))
      throw new KbError('INVALID_ARGUMENT', `"${name}" is not a user name: letters, digits, dots, dashes and underscores, up to 63`);
    return name;
  }

  private static entry(actor: string, action: string, target: string, detail: string | null = null): AuditRow {
    return { at: Date.now(), actor, action, target, detail };
  }

  /**
   * The collections' names and folders (a team user's view of paths: team-paths.ts): with `readable`,
   * only those the current user may read — another's folder is no collection to them.
   */
  async places(readable: boolean): Promise<Place[]> {
    const all = (await asEngine(() => this.core.store.tables.collections.list())).map((c) => ({ name: c.name, root: c.root }));
    const sight = readable ? await this.core.store.accounts?.sight() : undefined;
    return sight && !sight.all ? all.filter((c) => sight.readable.includes(c.name)) : all;
  }

  /** A new user; its token is returned once and never stored. */
  async addUser(name: string, role: Role, actor = currentActor() ?? DATABASE_ADMIN): Promise<Account & { token: string }> {
    AccountService.name(name);
    const t = newToken();
    const hash = await hashSecret(t.secret);
    const added = await this.port.write(async (a) => {
      if (!(await a.addUser({ name, role, token_id: t.id, token_hash: hash, created_at: Date.now() }))) return false;
      await a.record(AccountService.entry(actor, 'user.add', name, role));
      return true;
    });
    if (!added)
      throw new KbError('INVALID_ARGUMENT', `there is a user named ${name} already (kb users token ${name} gives them a new token)`);
    return { name, role, token: t.token };
  }

  async listUsers(): Promise<(Account & { created_at: number })[]> {
    return (await this.port.users()).map(({ name, role, created_at }) => ({ name, role, created_at }));
  }

  /** The user and every grant to them go; their token stops working at once. */
  async removeUser(name: string, actor = currentActor() ?? DATABASE_ADMIN): Promise<void> {
    const removed = await this.port.write(async (a) => {
      if (!(await a.removeUser(name))) return false;
      await a.record(AccountService.entry(actor, 'user.remove', name));
      return true;
    });
    if (!removed) throw new KbError('NOT_FOUND', `no user named ${name}`);
    this.core.wordsChanged(); // what they were told of words, kept for them, goes
  }

  /** A new token for a user; the old one stops working at once. */
  async newToken(name: string, actor = currentActor() ?? DATABASE_ADMIN): Promise<Account & { token: string }> {
    const t = newToken();
    const hash = await hashSecret(t.secret);
    const user = await this.port.write(async (a) => {
      const u = await a.user(name);
      if (!u || !(await a.setToken(name, t.id, hash))) return null;
      await a.record(AccountService.entry(actor, 'user.token', name));
      return u;
    });
    if (!user) throw new KbError('NOT_FOUND', `no user named ${name}`);
    return { name, role: user.role, token: t.token };
  }

  /** Lets a user (or @all) read a collection. */
  async grant(collection: string, grantee: string, actor = currentActor() ?? DATABASE_ADMIN): Promise<{ changed: boolean }> {
    return this.changeGrant('grant', collection, grantee, actor);
  }

  async revoke(collection: string, grantee: string, actor = currentActor() ?? DATABASE_ADMIN): Promise<{ changed: boolean }> {
    return this.changeGrant('revoke', collection, grantee, actor);
  }

  private async changeGrant(kind: 'grant' | 'revoke', collection: string, grantee: string, actor: string): Promise<{ changed: boolean }> {
    if (!(await this.core.store.tables.collections.list()).some((c) => c.name === collection))
      throw new KbError('NOT_FOUND', `no collection named ${collection} (kb collections lists them)`);
    if (grantee !== EVERYONE && !(await this.port.user(grantee)))
      throw new KbError('NOT_FOUND', `no user named ${grantee} (kb users list)`);
    const changed = await this.port.write(async (a) => {
      const did = kind === 'grant' ? await a.grant(collection, grantee) : await a.revoke(collection, grantee);
      if (did) await a.record(AccountService.entry(actor, `collection.${kind}`, collection, grantee));
      return did;
    });
    // Which words a user's passages hold (spelling, typing: pg-word-source.ts) is kept per user until
    // the chunks' generation moves, which the grant moved (migration 17): asked again here at once.
    if (changed) this.core.wordsChanged();
    return { changed };
  }

  async grants(): Promise<{ collection: string; grantee: string }[]> {
    return this.port.grants();
  }

  /** Who changed users, grants and collections, newest first. */
  async trail(limit = 100): Promise<AuditRow[]> {
    return this.port.trail(limit);
  }

  /**
   * A team's user adds files only inside the folders of collections they may write: the database
   * would refuse the rows anyway, but the files must not even be read (a path elsewhere on the
   * server is not theirs to open). The machine's owner may add anything.
   */
  async assertMayAdd(paths: string[], doing = 'add files'): Promise<void> {
    const user = currentActor();
    if (user === undefined) return;
    const roots = await this.writableRoots();
    if (roots === null) return;
    for (const p of paths) {
      // Where it really is: a link inside a collection to elsewhere is elsewhere.
      const full = await realpath(p).catch(() => resolve(p));
      if (!roots.some((r) => full === r.slice(0, -1) || full.startsWith(r)))
        throw new KbError(
          'FORBIDDEN',
          `${user} may ${doing} only inside the collections they edit${roots.length ? '' : ' (none yet: ask an admin to grant you one, as an editor)'}: ${p} is outside them`,
        );
    }
  }

  /** The real folders (ending in the separator) of the collections the caller edits; null: anything (the owner, an admin). */
  private async writableRoots(): Promise<string[] | null> {
    return (await this.writable())?.map((c) => c.real) ?? null;
  }

  /** The collections the caller edits: each root as recorded and really (both ending in the separator); null: all. */
  private async writable(): Promise<{ root: string; real: string }[] | null> {
    if (currentActor() === undefined) return null;
    const sight = await this.port.sight();
    if (sight.all) return null;
    const slash = (p: string): string => (p.endsWith(sep) ? p : p + sep);
    const roots = (await this.core.store.tables.collections.list()).filter((c) => sight.writable.includes(c.name));
    return Promise.all(roots.map(async (c) => ({ root: slash(c.root), real: slash(await realpath(c.root).catch(() => resolve(c.root))) })));
  }

  /**
   * What a team's user's ingest may read: the real root of the collection they edit that holds a
   * file's real path (ingest/confine.ts). None for the owner and admins.
   */
  async confinement(): Promise<Confinement | undefined> {
    const roots = await this.writable();
    if (roots === null) return undefined;
    // The deepest root first: a collection inside another's folder owns its files.
    const deepest = [...roots].sort((a, b) => b.real.length - a.real.length);
    return (real) => {
      const c = deepest.find((x) => real.startsWith(x.real));
      // Recorded under the collection's root as kb knows it, so the database files it there.
      return c === undefined ? null : { root: c.root.slice(0, -1), path: c.root + real.slice(c.real.length) };
    };
  }

  /** A team's user adds to a collection only if they edit it; the machine's owner, to any. */
  async assertMayAddTo(collection: string): Promise<void> {
    const user = currentActor();
    if (user === undefined) return;
    const sight = await this.port.sight();
    if (!sight.all && !sight.writable.includes(collection))
      throw new KbError('FORBIDDEN', `${user} may not add to ${collection}: ask an admin to make them its editor`);
  }

  /** A user by name, as their account (null when there is none). */
  async account(name: string): Promise<Account | null> {
    const u = await this.port.user(name);
    return u ? { name: u.name, role: u.role } : null;
  }

  /**
   * The account a token belongs to, or null. The account is read each time — a removed user or a
   * replaced token stops working at once, on every server — but scrypt is paid only the first time
   * a token is seen (then its SHA-256 is compared, in constant time).
   */
  async authenticate(token: string): Promise<Account | null> {
    const parts = parseToken(token);
    if (!parts) return null;
    const u = await this.port.byTokenId(parts.id);
    if (!u) return null;
    const digest = digestOf(parts.secret);
    const seen = this.known.get(parts.id);
    if (seen && seen.hash === u.token_hash) return timingSafeEqual(seen.digest, digest) ? { name: u.name, role: u.role } : null;
    if (!(await secretMatches(parts.secret, u.token_hash))) return null;
    if (this.known.size >= KNOWN_MAX) this.known.clear();
    this.known.set(parts.id, { hash: u.token_hash, digest });
    return { name: u.name, role: u.role };
  }
}
