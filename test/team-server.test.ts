// kb serve for a team (issue 35): on a shared store each request is its user's, signed in by their own
// token, and PostgreSQL's row-level security keeps each to the collections granted to them — through
// search, get, the Library, facets, the viewer, a document's bytes, ask's sources and collections
// alike; a reader cannot add, an editor adds only into their collections (a drop included); a wrong
// token is refused and, repeated, the address waits; a removed user is stopped mid-session.
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { KB_VERSION, localClient, openEngine } from '../src/worker/index.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ACCESS } from '../src/shared/access.js';
import { METHODS, type Method } from '../src/shared/api.js';
import { kbAsync, kbServe, repoRoot, writeTree } from './helpers.js';
import { startOllamaStub, type OllamaStub } from './support/ollama-stub.js';
import { type PgCluster, postgresAvailable, SERVER_ROLE, startCluster } from './support/postgres.js';
import { type Client, connect } from './support/ws-client.js';

const available = postgresAvailable();

/** A search hit (its citation says where) or a Library row (its path). */
interface Hit {
  path?: string;
  citation?: { path: string };
  doc_id: string;
}

describe.skipIf(!available)('kb serve for a team, on PostgreSQL', () => {
  let cluster: PgCluster;
  let url: string;
  let dir: string;
  let stub: OllamaStub;
  let server: Awaited<ReturnType<typeof kbServe>>;
  const tokens: Record<string, string> = {};
  const ids: Record<string, string> = {};
  const clients: Client[] = [];
  const as = async (user: string): Promise<Client> => {
    const c = await connect(server.port, tokens[user]!);
    clients.push(c);
    return c;
  };
  // A team user sees /<collection>/<path inside it>, never the server's folders (accounts/team-paths.ts).
  const paths = (hits: Hit[]): string[] => [...new Set(hits.map((h) => h.path ?? h.citation!.path))].sort();

  beforeAll(async () => {
    cluster = await startCluster();
    url = await cluster.database();
    dir = await mkdtemp(join(tmpdir(), 'kb-team-'));
    await writeTree(dir, {
      'team/plan.md': '# Plan\n\nShip the heron release on Friday.\n',
      'team/notes.txt': 'The heron release needs a changelog from blortech.',
      'private/diary.md': '# Diary\n\nThe heron came back to the pond at dawn. Project blorptech is secret.\n',
    });
    const engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url } } });
    await engine.addCollection(join(dir, 'team'), { name: 'team' });
    await engine.addCollection(join(dir, 'private'), { name: 'private' });
    for (const [name, role] of [
      ['alice', 'reader'],
      ['bob', 'editor'],
      ['erin', 'reader'],
    ] as const)
      tokens[name] = (await engine.accounts.addUser(name, role)).token;
    await engine.accounts.grant('team', 'alice');
    await engine.accounts.grant('private', 'bob');
    await engine.accounts.grant('team', 'erin');
    for (const d of (await engine.libraryPage({ limit: 50 })).documents) ids[d.path.slice(dir.length)] = d.doc_id;
    // The server connects as a role that owns nothing (README's team set-up), given its rights by the owner.
    await engine.grantServer(SERVER_ROLE);
    engine.close();
    stub = await startOllamaStub();
    server = await kbServe(join(dir, 'data'), 0, { KB_STORE: cluster.asServer(url), KB_OLLAMA_HOST: stub.url }, true);
  }, 120_000);
  afterAll(async () => {
    for (const c of clients) c.close();
    await server?.stop();
    await stub?.close();
    cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('shows each user only their collections: search, get, Library, facets, collections, whoami', async () => {
    const alice = await as('alice');
    expect((await alice.call('whoami', {})).result).toMatchObject({ user: 'alice', role: 'reader' });
    const found = (await alice.call('search', { query: 'heron', mode: 'lexical' })).result as { results: Hit[]; total_matches: number };
    expect(paths(found.results)).toEqual(['/team/notes.txt', '/team/plan.md']);
    expect(found.total_matches).toBe(2);
    // A word only the other collection holds is neither found nor suggested.
    const pond = (await alice.call('search', { query: 'pond', mode: 'lexical' })).result as { results: Hit[]; total_matches: number };
    expect(pond.results).toEqual([]);
    expect(JSON.stringify(pond)).not.toContain('pond at dawn');
    expect((await alice.call('get', { target: join(dir, 'private/diary.md') })).error?.code).toBe('NOT_FOUND');
    expect((await alice.call('get', { target: '/team/plan.md' })).result).toBeTruthy();
    const page = (await alice.call('documents.page', { limit: 50 })).result as { documents: Hit[]; total: number };
    expect(paths(page.documents)).toEqual(['/team/notes.txt', '/team/plan.md']);
    expect((await alice.call('facets', {})).result).toMatchObject({ documents: 2 });
    const cols = (await alice.call('collections.list', {})).result as { collections: { name: string; writable: boolean }[] };
    expect(cols.collections.map((c) => [c.name, c.writable])).toEqual([['team', false]]);
    expect((await alice.call('document.view', { doc_id: ids['/private/diary.md']! })).error?.code).toBe('NOT_FOUND');

    const bob = await as('bob');
    const his = (await bob.call('search', { query: 'heron', mode: 'lexical' })).result as { results: Hit[] };
    expect(paths(his.results)).toEqual(['/private/diary.md']);
    // A misspelling is corrected to words the user may read only: bob's diary's "pond" for him, never for alice.
    const typo = async (c: Client): Promise<string | undefined> =>
      ((await c.call('search', { query: 'ponnd', mode: 'lexical' })).result as { corrected?: { query: string } }).corrected?.query;
    expect(await typo(bob)).toBe('pond');
    expect(await typo(alice)).toBeUndefined();
    // A word only another collection holds is no word for alice: corrected to hers, as any typo is
    // (left alone, it told her that it existed — issue 50).
    const secret = async (c: Client): Promise<string | undefined> =>
      ((await c.call('search', { query: 'blorptech', mode: 'lexical' })).result as { corrected?: { query: string } }).corrected?.query;
    expect(await secret(alice)).toBe('blortech');
    expect(await secret(bob)).toBeUndefined();
    // A grant counts at once for her words too, on whichever process searches; revoked, they are no
    // words for her again.
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    expect((await owner.call('collections.grant', { collection: 'private', grantee: 'alice' })).error).toBeUndefined();
    for (let i = 0; i < 4; i++) expect(await secret(alice)).toBeUndefined();
    expect((await owner.call('collections.revoke', { collection: 'private', grantee: 'alice' })).error).toBeUndefined();
    for (let i = 0; i < 4; i++) expect(await secret(alice)).toBe('blortech');
    // The same through another process (the owner's command line, another server): at once, as every
    // search reads the generation a grant moves (at most 100 ms old).
    const other = await openEngine({ dataDir: join(dir, 'other'), config: { store: { url } } });
    try {
      const settled = async (want: string | undefined): Promise<void> => {
        await new Promise((r) => setTimeout(r, 150));
        for (let i = 0; i < 4; i++) expect(await secret(alice)).toBe(want);
      };
      await other.accounts.grant('private', 'alice');
      await settled(undefined);
      await other.accounts.revoke('private', 'alice');
      await settled('blortech');
    } finally {
      other.close();
    }
  });

  it("serves a document's bytes and rendition only to those who may read it", async () => {
    const get = (path: string, token: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${server.port}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await get(`/doc/${ids['/team/plan.md']}`, tokens.alice!)).status).toBe(200);
    expect((await get(`/doc/${ids['/private/diary.md']}`, tokens.alice!)).status).toBe(404);
    expect(await (await get(`/doc/${ids['/private/diary.md']}`, tokens.bob!)).text()).toContain('pond');
    expect((await get(`/doc/${ids['/private/diary.md']}/view`, tokens.alice!)).status).toBe(404);
  });

  it("keeps ask's sources, and what the model is shown, to the asker's collections", async () => {
    stub.set({ chat: { tokens: ['The heron release ships on Friday [1].'] } });
    const alice = await as('alice');
    const asked = (await alice.call('ask', { question: 'When does the heron release ship?' })).result as {
      sources: { hit: Hit }[];
      refused: boolean;
    };
    expect(asked.refused).toBe(false);
    expect(paths(asked.sources.map((s) => s.hit))).toEqual(['/team/notes.txt', '/team/plan.md']);
    const prompts = JSON.stringify(stub.calls.filter((c) => c.path === '/api/chat').map((c) => c.body));
    expect(prompts).not.toContain('pond');
  });

  it('lets a reader read only, and an editor add only into the collections granted to them', async () => {
    const alice = await as('alice');
    expect((await alice.call('ingest', { paths: [join(dir, 'team')] })).error?.code).toBe('FORBIDDEN');
    expect((await alice.call('users.list', {})).error?.code).toBe('FORBIDDEN');
    expect((await alice.call('remove', { target: ids['/team/plan.md']! })).error?.code).toBe('FORBIDDEN');

    const bob = await as('bob');
    const drop = (collection: string, token: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${server.port}/upload?name=minutes.md&collection=${collection}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, origin: `http://127.0.0.1:${server.port}` },
        body: '# Minutes\n\nThe kingfisher nests by the weir.\n',
      });
    const dropped = await drop('private', tokens.bob!);
    expect(dropped.status).toBe(200);
    const { path } = (await dropped.json()) as { path: string };
    // Named as bob sees his collection, never by the server's folder (issue 50); read back on ingest.
    expect(path).toMatch(/^\/private\/uploads\/[0-9a-f]{16}\/minutes\.md$/);
    expect((await bob.call('ingest', { paths: [path] })).result).toMatchObject({ added: 1, failed: 0 });
    const foundAnswer = await bob.call('search', { query: 'kingfisher', mode: 'lexical' });
    expect(foundAnswer.error).toBeUndefined();
    const found = foundAnswer.result as { results: Hit[] };
    expect(found.results).toHaveLength(1);
    expect(((await alice.call('search', { query: 'kingfisher', mode: 'lexical' })).result as { results: Hit[] }).results).toEqual([]);
    // Not into a collection he may only not see, nor one he may only read, nor anywhere else on the server.
    expect((await drop('team', tokens.bob!)).status).toBe(404);
    expect((await drop('team', tokens.alice!)).status).toBe(403);
    expect((await bob.call('ingest', { paths: [join(dir, 'team/plan.md')] })).error?.code).toBe('FORBIDDEN');
    expect((await bob.call('ingest', { paths: ['/etc/hostname'] })).error?.code).toBe('FORBIDDEN');
  });

  it('a grant to @all lets everyone read a collection, and no editor write it unless granted it by name (issue 50)', async () => {
    await writeTree(dir, { 'handbook/leave.md': '# Leave\n\nThe quokka holiday rota is in the handbook.\n' });
    const admin = await openEngine({ dataDir: join(dir, 'admin-data'), config: { store: { url } } });
    try {
      await admin.addCollection(join(dir, 'handbook'), { name: 'handbook' });
      await admin.accounts.grant('handbook', '@all');
    } finally {
      admin.close();
    }
    const alice = await as('alice');
    const bob = await as('bob');
    const leave = (await alice.call('search', { query: 'quokka', mode: 'lexical' })).result as { results: Hit[] };
    expect(paths(leave.results)).toEqual(['/handbook/leave.md']);
    const id = leave.results[0]!.doc_id;
    // Bob edits another collection: @all makes him a reader of this one, not its editor.
    expect((await bob.call('collections.list', {})).result).toMatchObject({
      collections: expect.arrayContaining([expect.objectContaining({ name: 'handbook', writable: false })]),
    });
    expect((await bob.call('ingest', { paths: [join(dir, 'handbook/leave.md')], force: true })).error?.code).toBe('FORBIDDEN');
    expect((await bob.call('ingest', { paths: [join(dir, 'handbook')], tags: ['mine'] })).error?.code).toBe('FORBIDDEN');
    expect((await bob.call('remove', { target: id })).error?.code).toBe('FORBIDDEN');
    const upload = await fetch(`http://127.0.0.1:${server.port}/upload?name=rota.md&collection=handbook`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.bob}`, origin: `http://127.0.0.1:${server.port}` },
      body: '# Rota\n\nnot his to add\n',
    });
    expect(upload.status).toBe(403);
    expect(((await alice.call('search', { query: 'quokka', mode: 'lexical' })).result as { results: Hit[] }).results).toHaveLength(1);
  });

  it("an editor's symlinks bring nothing in: not another collection's folder or file, not kb serve's token — named or walked (issue 50)", async () => {
    const links = {
      'private/team-link': join(dir, 'team'),
      'private/plan-link.md': join(dir, 'team/plan.md'),
      'private/token-link.txt': join(dir, 'data/serve-token'),
      'private/hostname-link.txt': '/etc/hostname',
    };
    for (const [at, to] of Object.entries(links)) await symlink(to, join(dir, at));
    try {
      const bob = await as('bob');
      for (const [at, to] of Object.entries(links)) {
        const named = await bob.call('ingest', { paths: [`/${at}`] });
        expect(named.error?.code, at).toBe('FORBIDDEN');
        // What lies behind the link is not said.
        expect(named.error?.message, at).not.toContain(to);
      }
      const walked = await bob.call('ingest', { paths: ['/private'] });
      expect(walked.error).toBeUndefined();
      const docs = ((await bob.call('documents.page', { limit: 100 })).result as { documents: Hit[] }).documents;
      expect(paths(docs).filter((p) => /link|plan|token|hostname/.test(p))).toEqual([]);
      expect(((await bob.call('search', { query: 'friday', mode: 'lexical' })).result as { results: Hit[] }).results).toEqual([]);
      expect((await bob.call('get', { target: '/private/token-link.txt' })).error?.code).toBe('NOT_FOUND');
    } finally {
      for (const at of Object.keys(links)) await rm(join(dir, at), { force: true });
    }
  });

  it('searches right after a drop while the folder watcher ingests it too: none fails, each finds it', async () => {
    // The watcher and the editor's own ingest write the same note; a search that meets a chunk the
    // other replaced meanwhile runs once more (search.ts) — it once failed with "chunk … vanished".
    const bob = await as('bob');
    const failed: string[] = [];
    for (let i = 0; i < 40; i++) {
      const r = await fetch(`http://127.0.0.1:${server.port}/upload?name=race-${i}.md&collection=private`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tokens.bob!}`, origin: `http://127.0.0.1:${server.port}` },
        body: `# Race ${i}\n\nThe wren${i} sings by the weir.\n`,
      });
      const { path } = (await r.json()) as { path: string };
      // Half of them asked for once the watcher has begun (it waits 150 ms for a folder to settle).
      if (i % 2) await new Promise((res) => setTimeout(res, 120 + (i % 5) * 20));
      const ingest = await bob.call('ingest', { paths: [path] });
      if (ingest.error) failed.push(`ingest ${i}: ${ingest.error.message}`);
      const found = await bob.call('search', { query: `wren${i}`, mode: 'lexical' });
      if (found.error) failed.push(`search ${i}: ${found.error.message}`);
      else if ((found.result as { results: Hit[] }).results.length !== 1) failed.push(`search ${i}: not found`);
    }
    expect(failed).toEqual([]);
  }, 120_000);

  it('answers every method of the contract within the caller’s rights: a reader’s read nothing of others’, the rest refused', async () => {
    const alice = await as('alice');
    const diary = join(dir, 'private/diary.md');
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    const inspected = (await owner.call('inspect.document', { target: diary })).result as { chunks: { chunk_id: string }[] };
    const chunkId = inspected.chunks[0]!.chunk_id;
    const params: Partial<Record<Method, unknown>> = {
      search: { query: 'heron came back' },
      source: { doc_id: ids['/private/diary.md'] },
      'document.view': { doc_id: ids['/private/diary.md'] },
      'document.open': { doc_id: ids['/private/diary.md'] },
      get: { target: diary },
      'inspect.document': { target: diary },
      'inspect.chunk': { chunk_id: chunkId },
      ask: { question: 'Where did the heron come back to at dawn?' },
      remove: { target: diary },
      ingest: { paths: [diary] },
      'documents.page': { limit: 50 },
      reindex: {},
      'store.migrate': { to: url },
      'store.grant_server': { role: 'kb_test' },
      'models.pull': { name: 'x' },
      'models.import': { path: diary },
      'models.remove': { name: 'x' },
      'models.use': { name: 'x' },
      'collections.add': { path: dir },
      'collections.leaving': { name: 'private' },
      'collections.forget': { name: 'private' },
      'users.add': { name: 'mallory', role: 'admin' },
      'users.remove': { name: 'bob' },
      'users.token': { name: 'bob' },
      'collections.grant': { collection: 'private', grantee: 'alice' },
      'collections.revoke': { collection: 'team', grantee: 'alice' },
      'settings.set': { key: 'ui.theme', value: 'dark' },
      'server.connect': { url: 'http://127.0.0.1:1', token: 'kb_x' },
    };
    for (const method of METHODS) {
      const answer = await alice.call(method, params[method] ?? {});
      const said = JSON.stringify(answer);
      if (ACCESS[method] !== 'read') expect(answer.error?.code, method).toBe('FORBIDDEN');
      // Nothing of the diary's text; and its name only where the caller's own words named it.
      else if (answer.error) expect(said, method).not.toMatch(/pond/i);
      else expect(said, method).not.toMatch(/diary|pond/i);
    }
    // Nothing of hers changed hands meanwhile.
    expect(((await bob()).result as { results: Hit[] }).results).toHaveLength(1);
    async function bob() {
      const b = await as('bob');
      return b.call('search', { query: 'pond', mode: 'lexical' });
    }
  });

  it('is the CLI’s and an agent’s (kb mcp) server too, with the person’s own rights', async () => {
    const site = `http://127.0.0.1:${server.port}`;
    const cli = await kbAsync(['--server', site, '--token', tokens.alice!, 'search', 'heron', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(paths((cli.json() as { results: Hit[] }).results)).toEqual(['/team/notes.txt', '/team/plan.md']);
    const viaEnv = await kbAsync(['search', 'pond', '--json'], { env: { KB_SERVER: site, KB_TOKEN: tokens.alice! } });
    expect((viaEnv.json() as { results: Hit[] }).results).toEqual([]);
    const wrong = await kbAsync(['--server', site, '--token', 'kb_000000000000_' + 'B'.repeat(43), 'search', 'heron']);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/did not accept the token/);

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(repoRoot, 'bin/kb.js'), 'mcp', '--server', site, '--token', tokens.bob!],
      env: { ...(process.env as Record<string, string>), KB_CONFIG: join(dir, 'none.yaml') },
      stderr: 'pipe',
    });
    const agent = new McpClient({ name: 'kb-test', version: '1.0.0' });
    await agent.connect(transport);
    try {
      const r = await agent.callTool({ name: 'search', arguments: { query: 'heron', mode: 'lexical' } });
      expect(paths((r.structuredContent as { results: Hit[] }).results)).toEqual(['/private/diary.md']);
      const got = (await agent.callTool({ name: 'get', arguments: { uri: `file://${join(dir, 'team/plan.md')}` } })) as {
        isError?: boolean;
      };
      expect(got.isError).toBe(true);
    } finally {
      await agent.close();
    }
  }, 60_000);

  it("is the app's team server: searches of both indexes fused, the Library, a server document's bytes and drops from there", async () => {
    const mine = join(dir, 'mine');
    await writeTree(mine, {
      'heron-watch.md': '# Heron watch\n\nA grey heron at the canal, my own note.\n',
      'drop/minutes.txt': 'Otters by the weir.',
    });
    const engine = await openEngine({ dataDir: join(mine, 'data') });
    try {
      await engine.ingest([join(mine, 'heron-watch.md')]);
      const app = localClient(engine, KB_VERSION);
      const site = `http://127.0.0.1:${server.port}`;
      expect((await app['server.status']({})).url).toBeNull();
      const wrong = app['server.connect']({ url: site, token: 'kb_000000000000_' + 'C'.repeat(43) });
      await expect(wrong).rejects.toThrow(/did not accept the token/);
      expect(await app['server.connect']({ url: site, token: tokens.bob! })).toMatchObject({
        connected: true,
        user: 'bob',
        role: 'editor',
      });
      // kb's commands on that data folder search both too, and end when done (the connection closes with the engine).
      const cli = await kbAsync(['--data-dir', join(mine, 'data'), 'search', 'heron', '--json']);
      expect(cli.code, cli.stderr).toBe(0);
      expect((cli.json() as { results: { from?: string }[] }).results.some((h) => h.from === site)).toBe(true);

      const both = await app.search({ query: 'heron', mode: 'lexical' });
      // This machine's own paths as they are; the server's as bob sees them: /<collection>/….
      const from = both.results.map((h) => [h.from ? h.citation.path : h.citation.path.slice(dir.length), h.from ?? 'here']);
      expect(from).toEqual(
        expect.arrayContaining([
          ['/mine/heron-watch.md', 'here'],
          ['/private/diary.md', site],
        ]),
      );
      expect(from.some(([p]) => p!.startsWith('/team'))).toBe(false); // bob's rights there, not the owner's
      // The Library is the server's; a server document's bytes come over for the viewer.
      expect(paths((await app['documents.page']({ limit: 50 })).documents)).toContain('/private/diary.md');
      const source = await app.source({ doc_id: ids['/private/diary.md']! });
      expect(readFileSync(source.file, 'utf8')).toContain('pond');
      expect(source.file.startsWith(join(mine, 'data'))).toBe(true);
      const own = await app.source({ doc_id: both.results.find((h) => !h.from)!.doc_id });
      expect(readFileSync(own.file, 'utf8')).toContain('my own note');
      // A drop onto a server collection: the bytes go there, the server indexes them.
      const dropped = await app.ingest({ paths: [join(mine, 'drop')], collection: 'private' });
      expect(dropped).toMatchObject({ added: 1, failed: 0 });
      const otters = await (await as('bob')).call('search', { query: 'otters', mode: 'lexical' });
      expect((otters.result as { results: Hit[] }).results).toHaveLength(1);
      await expect(app.ingest({ paths: [join(mine, 'drop')], collection: 'team' })).rejects.toThrow(/no collection named team/);

      expect(await app['server.disconnect']({})).toMatchObject({ url: null, connected: false });
      expect((await app.search({ query: 'heron', mode: 'lexical' })).results.every((h) => !h.from)).toBe(true);
    } finally {
      engine.close();
    }
  });

  it("a link with another account's token asks before it replaces the session the browser has (issue 50)", async () => {
    const site = `http://127.0.0.1:${server.port}`;
    const html = { accept: 'text/html' };
    const page = await fetch(`${site}/?token=${tokens.bob}`, {
      redirect: 'manual',
      headers: { ...html, cookie: `kb_token=${tokens.alice}` },
    });
    // Alice stays alice; bob's token leaves the address at once, kept for the question at /sign-in.
    expect(page.status).toBe(303);
    expect(page.headers.get('set-cookie')).not.toMatch(/kb_token=/);
    const asked = await fetch(`${site}/sign-in`, { headers: { ...html, cookie: page.headers.get('set-cookie')!.split(';')[0]! } });
    const text = await asked.text();
    expect(text).toMatch(/Sign in as bob\?/);
    expect(text).toMatch(/No, stay as I am/);
    // The same account's link: nothing to ask.
    const same = await fetch(`${site}/?token=${tokens.alice}`, { headers: { ...html, cookie: `kb_token=${tokens.alice}` } });
    expect(same.headers.get('set-cookie')).toMatch(/^kb_token=/);
  });

  it("tells each open page only what its user may know: another collection's file names and errors never reach a reader (issue 50)", async () => {
    const alice = await as('alice');
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    await writeTree(dir, { 'private/secret-plans.md': '# Secret\n\nThe kestrel roost is confidential.\n' });
    // The owner's page hears the watched folder's change, by name; alice's only that something changed.
    for (let i = 0; i < 100 && !owner.events.some((e) => e.event === 'collections'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(JSON.stringify(owner.events)).toContain('secret-plans.md');
    for (let i = 0; i < 50 && !alice.events.some((e) => e.event === 'changed'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(alice.events.some((e) => e.event === 'changed')).toBe(true);
    expect(alice.events.map((e) => e.event)).not.toContain('collections');
    expect(alice.events.map((e) => e.event)).not.toContain('background');
    expect(JSON.stringify(alice.events)).not.toContain('secret-plans');
  });

  it("answers one reader's search while another floods the server with searches (issue 50)", async () => {
    const alice = await as('alice');
    const erin = await as('erin');
    const done: string[] = [];
    const flood = Array.from({ length: 300 }, (_, i) =>
      alice.call('search', { query: `heron release ${i}`, mode: 'lexical' }).then((r) => {
        // Past her 4 at the engine and 256 waiting, one is refused, never kept.
        if (r.error) expect(r.error.code).toBe('BUSY');
        else done.push('alice');
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const hers = await erin.call('search', { query: 'heron', mode: 'lexical' });
    expect(hers.error).toBeUndefined();
    done.push('erin');
    await Promise.all(flood);
    // Erin waited for a few of alice's searches, never for her three hundred (user-turns.ts).
    expect(done.indexOf('erin')).toBeLessThan(60);
  });

  it("one reader's pathological requests neither freeze the server nor pass unrefused (issue 50)", async () => {
    const alice = await as('alice');
    const erin = await as('erin');
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    // A long file name in a collection alice cannot read: the glob was matched against every path.
    const long = join(dir, 'private', `${'heron-'.repeat(9)}notes.md`);
    await writeTree(dir, { [`private/${'heron-'.repeat(9)}notes.md`]: '# Long\n\nA heron with a long name.\n' });
    expect((await owner.call('ingest', { paths: [long] })).error).toBeUndefined();
    // picomatch's backtracking took ~30× longer per `*?` here: eight of them, ten seconds; twelve, hours.
    const glob = alice.call('search', { query: 'heron', path: `${'*?'.repeat(12)}x` });
    const [theirs, mine] = await Promise.all([glob, erin.call('whoami', {})]);
    expect(theirs.error).toBeUndefined();
    expect((theirs.result as { results: unknown[] }).results).toEqual([]);
    expect(mine.result).toMatchObject({ user: 'erin' });
    for (const query of ["'a:* | b:* | c:*'", `'${'('.repeat(40)}heron${')'.repeat(40)}'`])
      expect((await alice.call('search', { query, mode: 'lexical' })).error).toMatchObject({ code: 'QUERY_INVALID' });
    expect((await alice.call('search', { query: 'heron', tags: Array.from({ length: 65 }, (_, i) => `t${i}`) })).error).toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it("tells a reader nothing of the server's own configuration: no paths, database, hosts, disk or settings file; counts of what they may read (issue 50)", async () => {
    const alice = await as('alice');
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    const theirs = await Promise.all(
      ['status', 'index.status', 'settings.get', 'collections.list'].map(async (m) => (await alice.call(m, {})).result),
    );
    const said = JSON.stringify(theirs);
    // Not the folders (the collections', the data dir's, the logs'), the database's address, Ollama's host.
    for (const secret of [dir, String(new URL(url).port), stub.url, '11434']) expect(said).not.toContain(secret);
    const [status, index, settings] = theirs as [
      { data_dir: string },
      { chunks: number; disk?: unknown; collections: { name: string }[] },
      { values: Record<string, unknown> },
    ];
    expect(status.data_dir).toBe('');
    expect(index.disk).toBeUndefined();
    expect(index.collections.map((c) => c.name)).not.toContain('private');
    expect(Object.keys(settings.values).every((k) => k.startsWith('ui.'))).toBe(true);
    // The owner sees the server as it is; alice, the passages of her collections only.
    const all = (await owner.call('index.status', {})).result as { chunks: number; data_dir: string };
    expect(all.data_dir).toBe(join(dir, 'data'));
    expect(index.chunks).toBeGreaterThan(0);
    expect(index.chunks).toBeLessThan(all.chunks);
  });

  it("shows a reader each document at /<collection>/…, never the server's folders, in every answer — and reads paths named so (issue 50)", async () => {
    const alice = await as('alice');
    const plan = ids['/team/plan.md']!;
    const hit = ((await alice.call('search', { query: 'heron', mode: 'lexical' })).result as { results: { chunk_id: string }[] })
      .results[0]!;
    const answers = await Promise.all(
      (
        [
          ['search', { query: 'heron', mode: 'lexical', explain: true }],
          ['documents.page', { limit: 50 }],
          ['documents.paths', {}],
          ['get', { target: '/team/plan.md#L1-L3' }],
          ['inspect.document', { target: plan }],
          ['inspect.chunk', { chunk_id: hit.chunk_id }],
          ['source', { doc_id: plan }],
          ['document.view', { doc_id: plan }],
          ['ask', { question: 'When does the heron release ship?' }],
          ['get', { target: '/team/missing.md' }],
          ['remove', { target: '/team/plan.md' }],
        ] as const
      ).map(async ([m, p]) => [m, await alice.call(m, p)] as const),
    );
    for (const [m, a] of answers) expect(JSON.stringify(a), m).not.toContain(dir);
    const [search, page, listed, got, inspected, chunk, source] = answers.map(([, a]) => a.result) as [
      { results: { citation: { path: string; uri: string } }[] },
      { documents: Hit[] },
      { paths: string[] },
      { citation: { path: string }; text: string },
      { document: { path: string }; chunks: { rowid: number }[] },
      { document: { path: string }; chunk: { rowid: number } },
      { file: string },
    ];
    expect(search.results.map((h) => h.citation.uri)).toContain('file:///team/plan.md#L1-L3');
    expect(paths(page.documents)).toEqual(expect.arrayContaining(['/team/notes.txt', '/team/plan.md']));
    expect(listed.paths.sort()).toEqual(paths(page.documents));
    expect(got).toMatchObject({ citation: { path: '/team/plan.md' } });
    expect(got.text).toContain('heron release');
    expect(inspected.document.path).toBe('/team/plan.md');
    expect(chunk.document.path).toMatch(/^\/team\//);
    // No passage's number in the whole index: it counted what other collections added.
    expect([chunk.chunk.rowid, ...inspected.chunks.map((c) => c.rowid)].every((n) => n === 0)).toBe(true);
    expect(source.file).not.toContain(dir);
    expect(answers[9]![1].error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('/team/missing.md') });
    expect(answers[10]![1].error?.code).toBe('FORBIDDEN'); // a reader, in her own terms
    // A glob in her terms narrows as it says; a path that climbs out of its collection finds nothing.
    const narrowed = (await alice.call('search', { query: 'heron', mode: 'lexical', path: '/team/*.md' })).result as { results: Hit[] };
    expect(paths(narrowed.results)).toEqual(['/team/plan.md']);
    expect((await alice.call('get', { target: '/team/../private/diary.md' })).error?.code).toBe('NOT_FOUND');
    expect((await alice.call('get', { target: `file:///team/plan.md#L1-L3` })).result).toMatchObject({
      citation: { path: '/team/plan.md' },
    });
    // What a guess of the server's folders is told: only what was typed, the same whether the folder is
    // another's collection, hers, kb's data dir, or nothing; a relative path is not read from where
    // kb serve runs. (Found by an attack: the error named the collection a guessed folder was.)
    const refusal = async (target: string): Promise<string> => {
      const e = (await alice.call('get', { target })).error!;
      expect(e.code, target).toBe('NOT_FOUND');
      return e.message.replace(target, 'X');
    };
    const said = await Promise.all(
      [
        join(dir, 'private/diary.md'),
        join(dir, 'private'),
        join(dir, 'team/plan.md'),
        join(dir, 'data/serve-token'),
        '/nowhere/x.md',
        'diary.md',
      ].map(refusal),
    );
    expect(new Set(said).size, said.join(' | ')).toBe(1);
    expect(said[0]).not.toContain(process.cwd());
    // A glob or a Library filter of the server's folders matches nothing; of hers, what it says.
    for (const path of [`${dir}/**`, '/tmp/**', '**/private/**'])
      expect(((await alice.call('search', { query: 'heron', mode: 'lexical', path })).result as { results: Hit[] }).results, path).toEqual(
        [],
      );
    const filtered = async (filter: string): Promise<string[]> =>
      paths(((await alice.call('documents.page', { limit: 50, filter })).result as { documents: Hit[] }).documents);
    expect(await filtered(dir.slice(0, 8))).toEqual([]);
    expect(await filtered('/team/pl')).toEqual(['/team/plan.md']);
    // The bytes still come: the server reads where they are for her.
    const bytes = await fetch(`http://127.0.0.1:${server.port}/doc/${plan}`, { headers: { authorization: `Bearer ${tokens.alice}` } });
    expect(await bytes.text()).toContain('heron release');
    // The owner sees the server as it is.
    const owner = await connect(server.port, server.token);
    clients.push(owner);
    expect(((await owner.call('inspect.document', { target: plan })).result as { document: { path: string } }).document.path).toBe(
      join(dir, 'team/plan.md'),
    );
  });

  it("takes a user's drops out of a daily quota (serve.upload_quota), keeping nothing of the one past it; the owner has none (issue 50)", async () => {
    const data = join(dir, 'quota-data');
    await writeTree(data, { 'config.yaml': 'serve:\n  upload_quota: 1\n' });
    const small = await kbServe(data, 0, { KB_STORE: url }, true);
    try {
      const drop = (name: string, token: string, kb: number): Promise<Response> =>
        fetch(`http://127.0.0.1:${small.port}/upload?name=${name}&collection=private`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, origin: `http://127.0.0.1:${small.port}` },
          body: `# ${name}\n\n${'quota '.repeat((kb * 1024) / 6)}\n`,
        });
      expect((await drop('first.md', tokens.bob!, 600)).status).toBe(200);
      const over = await drop('second.md', tokens.bob!, 600);
      expect(over.status).toBe(413);
      expect(((await over.json()) as { error: { message: string } }).error.message).toMatch(/1 MB today.*serve\.upload_quota/);
      const kept = readdirSync(join(dir, 'private', 'uploads'), { recursive: true }).map(String);
      expect(kept.some((f) => f.endsWith('first.md'))).toBe(true);
      expect(kept.some((f) => f.endsWith('second.md') || f.endsWith('.part'))).toBe(false);
      expect((await drop('owners.md', small.token, 2048)).status).toBe(200);
    } finally {
      await small.stop();
    }
  });

  it('refuses a wrong token, then the address for a while; stops a removed user at once', async () => {
    const erin = await as('erin');
    expect((await erin.call('whoami', {})).result).toMatchObject({ user: 'erin' });
    const removed = await kbAsync(['users', 'remove', 'erin', '--store', url, '--data-dir', join(dir, 'cli-data')]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(['UNAUTHENTICATED', 'CLOSED']).toContain((await erin.call('search', { query: 'heron' })).error?.code);
    // Her open page is closed within moments, saying why (it then shows the sign-in page with the reason).
    expect(await erin.closed).toEqual({ code: 4001, reason: expect.stringMatching(/account was removed or its token replaced/) });
    await expect(connect(server.port, tokens.erin!)).rejects.toThrow(/refused: 401/);

    const wrong = 'kb_000000000000_' + 'A'.repeat(43);
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++)
      statuses.push((await fetch(`http://127.0.0.1:${server.port}/`, { headers: { authorization: `Bearer ${wrong}` } })).status);
    // Ten failures from one address (the wrong tokens of the tests above among them), then it waits.
    const first = statuses.indexOf(429);
    expect(first).toBeGreaterThanOrEqual(5);
    expect(statuses.slice(0, first).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(first).every((s) => s === 429)).toBe(true);
    // Even the right token waits now, from that address.
    expect((await fetch(`http://127.0.0.1:${server.port}/?token=${server.token}`)).status).toBe(429);
  });
});

describe('kb serve on an address other machines reach', () => {
  it('refuses plain HTTP there unless told --insecure, and then needs the public address', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kb-host-'));
    try {
      const bare = await kbAsync(['serve', '--host', '0.0.0.0', '--data-dir', join(dir, 'data')]);
      expect(bare.code).not.toBe(0);
      expect(bare.stderr).toMatch(/TLS proxy/);
      const noUrl = await kbAsync(['serve', '--host', '0.0.0.0', '--insecure', '--data-dir', join(dir, 'data')]);
      expect(noUrl.stderr).toMatch(/--public-url/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
