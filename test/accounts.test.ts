// A team's accounts on a shared store (issue 35): users with roles and tokens kept only as salted
// hashes, a token that stops working at once (on every server) when replaced or its user removed,
// grants of collections to users or @all, and the trail of who changed what. One data dir's SQLite
// index has none, and says so.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../src/worker/index.js';
import { actingFor } from '../src/worker/acting.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { engineIn, kbAsync, tempDir, writeTree } from './helpers.js';

const available = postgresAvailable();

describe.skipIf(!available)('accounts on PostgreSQL', () => {
  let cluster: PgCluster;
  let url: string;
  let dir: string;
  let one: Engine;
  let two: Engine;
  beforeAll(async () => {
    cluster = await startCluster();
    url = await cluster.database();
    dir = await mkdtemp(join(tmpdir(), 'kb-accounts-'));
    await writeTree(dir, { 'team/plan.md': '# Plan\n\nShip it.\n', 'private/diary.md': '# Diary\n\nQuiet day.\n' });
    // Two servers on one database.
    one = await openEngine({ dataDir: join(dir, 'one'), config: { store: { url } } });
    two = await openEngine({ dataDir: join(dir, 'two'), config: { store: { url } } });
    await one.addCollection(join(dir, 'team'), { name: 'team' });
    await one.addCollection(join(dir, 'private'), { name: 'private' });
  });
  afterAll(async () => {
    one?.close();
    two?.close();
    cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps a token only as a salted hash, and knows its user by it on every server', async () => {
    const alice = await one.accounts.addUser('alice', 'editor');
    expect(alice.token).toMatch(/^kb_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    expect(await two.accounts.authenticate(alice.token)).toEqual({ name: 'alice', role: 'editor' });
    expect(await two.accounts.authenticate(alice.token)).toEqual({ name: 'alice', role: 'editor' }); // known now: no scrypt
    const c = new pg.Client({ connectionString: url, options: '-c search_path=kb' });
    await c.connect();
    try {
      const row = (await c.query('SELECT * FROM users WHERE name = $1', ['alice'])).rows[0] as Record<string, string>;
      const secret = alice.token.split('_').slice(2).join('_');
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(row.token_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    } finally {
      await c.end();
    }
    // A wrong secret, a malformed token, an unknown id: nobody.
    expect(await two.accounts.authenticate(`${alice.token.slice(0, -1)}${alice.token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await two.accounts.authenticate('kb_nonsense')).toBeNull();
    expect(await two.accounts.authenticate(`kb_000000000000_${'a'.repeat(43)}`)).toBeNull();
    await expect(one.accounts.addUser('alice', 'reader')).rejects.toThrow(/a user named alice already/);
    await expect(one.accounts.addUser('@all', 'reader')).rejects.toThrow(/not a user name/);
  });

  it('stops a replaced token and a removed user at once, on a server that had already let them in', async () => {
    const bob = await one.accounts.addUser('bob', 'reader');
    expect(await two.accounts.authenticate(bob.token)).toEqual({ name: 'bob', role: 'reader' });
    const renewed = await one.accounts.newToken('bob');
    expect(await two.accounts.authenticate(bob.token)).toBeNull();
    expect(await two.accounts.authenticate(renewed.token)).toEqual({ name: 'bob', role: 'reader' });
    await one.accounts.grant('team', 'bob');
    await one.accounts.removeUser('bob');
    expect(await two.accounts.authenticate(renewed.token)).toBeNull();
    expect((await one.accounts.grants()).some((g) => g.grantee === 'bob')).toBe(false);
    await expect(one.accounts.removeUser('bob')).rejects.toThrow(/no user named bob/);
  });

  it('grants collections to users or to everyone, refusing names it does not know, and keeps the trail', async () => {
    await one.accounts.addUser('carol', 'reader');
    expect(await one.accounts.grant('team', 'carol')).toEqual({ changed: true });
    expect(await one.accounts.grant('team', 'carol')).toEqual({ changed: false });
    expect(await one.accounts.grant('private', '@all')).toEqual({ changed: true });
    expect(await one.accounts.revoke('private', '@all')).toEqual({ changed: true });
    await expect(one.accounts.grant('nowhere', 'carol')).rejects.toThrow(/no collection named nowhere/);
    await expect(one.accounts.grant('team', 'mallory')).rejects.toThrow(/no user named mallory/);
    expect(await two.accounts.grants()).toContainEqual({ collection: 'team', grantee: 'carol' });
    const trail = (await two.accounts.trail()).map((e) => `${e.actor} ${e.action} ${e.target}${e.detail ? ` ${e.detail}` : ''}`);
    expect(trail.slice(0, 4)).toEqual([
      '@admin collection.revoke private @all',
      '@admin collection.grant private @all',
      '@admin collection.grant team carol',
      '@admin user.add carol reader',
    ]);
    expect(trail).toContain(`@admin collection.add team ${join(dir, 'team')}`);
    expect(trail).toContain('@admin user.remove bob');
    // Nobody searched or read anything on the trail: only changes.
    expect(trail.every((t) => /user\.|collection\./.test(t))).toBe(true);
  });

  it('is run from the command line with the database credentials, the token printed once', async () => {
    const env = { KB_DATA_DIR: join(dir, 'cli'), KB_CONFIG: join(dir, 'none.yaml'), KB_STORE: url };
    const add = await kbAsync(['users', 'add', 'dave', '--role', 'admin', '--json'], { env });
    expect(add.code).toBe(0);
    const token = add.json().token as string;
    expect(await one.accounts.authenticate(token)).toEqual({ name: 'dave', role: 'admin' });
    const list = await kbAsync(['users', 'list', '--json'], { env });
    expect((list.json().users as { name: string }[]).map((u) => u.name)).toEqual(['alice', 'carol', 'dave']);
    expect(JSON.stringify(list.json())).not.toContain(token.split('_').slice(2).join('_'));
    const grant = await kbAsync(['collections', 'grant', 'team', '@all'], { env });
    expect(grant.stdout).toMatch(/everyone may now read team/);
    // Each user's line says what their role lets them do with what they were granted.
    const lines = (await kbAsync(['users', 'list'], { env })).stdout.split('\n');
    expect(lines.find((l) => l.startsWith('dave'))).toMatch(/admin\s+reads and changes every collection$/);
    expect(lines.find((l) => l.startsWith('carol'))).toMatch(/reader\s+reads team$/);
    const audit = await kbAsync(['audit', '--limit', '1', '--json'], { env });
    expect(audit.json().entries).toEqual([
      expect.objectContaining({ actor: '@admin', action: 'collection.grant', target: 'team', detail: '@all' }),
    ]);
    // A team's admin changing things through a server is named on the trail, not hidden behind @admin.
    await actingFor('dave', () => one.accounts.revoke('team', '@all'));
    await actingFor('dave', () => one.accounts.addUser('erin', 'reader'));
    expect((await one.accounts.trail(2)).map((e) => `${e.actor} ${e.action} ${e.target}`)).toEqual([
      'dave user.add erin',
      'dave collection.revoke team',
    ]);
  });
});

describe('accounts on one data dir’s own index', () => {
  it('say they need a shared store', async () => {
    const engine = await engineIn();
    await expect(engine.accounts.addUser('alice', 'reader')).rejects.toThrow(
      /accounts live in a shared store: run this with --store postgresql:/,
    );
    const r = await kbAsync(['users', 'list'], { env: { KB_DATA_DIR: join(await tempDir(), 'data'), KB_CONFIG: '/nonexistent.yaml' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/UNSUPPORTED/);
  });
});
