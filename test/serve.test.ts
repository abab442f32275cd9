// The web host (`kb serve`): the same RPC contract as the desktop app, over a WebSocket to a real
// worker process, on 127.0.0.1 only, behind the data dir's token, with Host and Origin checked.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SearchResultSchema, IngestSummarySchema } from '../src/shared/wire.js';
import { heard, kbAsync, kbServe, tempDir, writeTree } from './helpers.js';
import { connect } from './support/ws-client.js';

describe('kb serve', () => {
  it('serves the API to its own page, with progress, validation and errors', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/git.md': '# Git\n\nInstalling git on Debian: apt-get install git.\n' });
    const host = await kbServe(join(dir, 'data'));
    expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
    const c = await connect(host.port, host.token);
    try {
      expect((await c.call('status', {})).result).toMatchObject({ ready: true, data_dir: join(dir, 'data') });
      const progress: unknown[] = [];
      const ingested = await c.call('ingest', { paths: [join(dir, 'notes')] }, (p) => progress.push(p));
      expect(IngestSummarySchema.parse(ingested.result)).toMatchObject({ added: 1 });
      expect(progress.length).toBeGreaterThan(0);
      const found = SearchResultSchema.parse((await c.call('search', { query: 'install git', prefix: true })).result);
      expect(found.results[0]!.citation).toMatchObject({ kind: 'lines', path: join(dir, 'notes/git.md') });
      // Bad calls get errors in the contract's shape; the connection and the worker carry on.
      expect((await c.call('search', { query: 3 })).error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/query/),
      });
      expect((await c.call('ingest', { paths: [] })).error).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect((await c.call('dropTables', {})).error).toMatchObject({ code: 'NOT_FOUND' });
      expect(await c.raw('not json')).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
      expect((await c.call('documents.page', { limit: 10 })).result).toMatchObject({
        documents: [{ path: join(dir, 'notes/git.md') }],
        total: 1,
      });
    } finally {
      c.close();
    }
  });

  it('serves indexed documents by id only: never a path, never without the token', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/a.md': '# A\n\nalpha\n', 'secret.txt': 'not indexed' });
    const host = await kbServe(join(dir, 'data'));
    const c = await connect(host.port, host.token);
    await c.call('ingest', { paths: [join(dir, 'notes')] });
    const { documents } = (await c.call('documents.page', { limit: 10 })).result as { documents: { doc_id: string }[] };
    c.close();
    const base = `http://127.0.0.1:${host.port}`;
    const cookie = { headers: { cookie: `kb_token=${host.token}` } };
    const doc = await fetch(`${base}/doc/${documents[0]!.doc_id}`, cookie);
    expect(doc.status).toBe(200);
    expect(await doc.text()).toBe('# A\n\nalpha\n');
    expect(doc.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect((await fetch(`${base}/doc/${documents[0]!.doc_id}`)).status).toBe(401);
    const { request } = await import('node:http');
    // Raw paths, so neither fetch nor URL normalises the dots away.
    const raw = (path: string): Promise<number> =>
      new Promise((res) =>
        request({ host: '127.0.0.1', port: host.port, path, headers: { cookie: `kb_token=${host.token}` } }, (r) => {
          let body = '';
          r.on('data', (d: Buffer) => (body += d.toString()));
          r.on('end', () => res(body.includes('root:') || body.includes('not indexed') ? -1 : r.statusCode!));
        }).end(),
      );
    for (const p of [
      '/doc/../../../etc/passwd',
      '/doc/..%2f..%2f..%2fetc%2fpasswd',
      `/doc/${encodeURIComponent(join(dir, 'secret.txt'))}`,
      '/doc/%2e%2e/secret.txt',
      '/doc/0123456789abcdef0123',
      '/../../etc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/%E0%A4%A',
    ]) {
      const status = await raw(p);
      expect([404, 400], p).toContain(status);
    }
    // Still serving after all of that.
    expect((await fetch(host.url)).status).toBe(200);
  });

  it('takes files dropped in the browser: only from its own page, only under uploads/, with ranges served back', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    const host = await kbServe(data);
    const base = `http://127.0.0.1:${host.port}`;
    const post = (name: string, body: string, origin = base): Promise<Response> =>
      fetch(`${base}/upload?name=${encodeURIComponent(name)}`, {
        method: 'POST',
        body,
        headers: { cookie: `kb_token=${host.token}`, origin },
      });
    expect((await post('a.md', 'x', 'http://evil.example')).status).toBe(403);
    expect((await fetch(`${base}/upload?name=a.md`, { method: 'POST', body: 'x', headers: { origin: base } })).status).toBe(401);
    for (const bad of ['../escape.md', 'a/../../escape.md', '..\\escape.md']) expect((await post(bad, 'x')).status, bad).toBe(400);
    const ok = await post('notes/dropped.md', '# Dropped\n\nthe kestrel hovers\n');
    expect(ok.status).toBe(200);
    const { path } = (await ok.json()) as { path: string };
    // Kept by content: uploads/<hash>/<its path in the drop>.
    expect(path).toMatch(new RegExp(`^${join(data, 'uploads')}/[0-9a-f]{16}/notes/dropped\\.md$`));
    expect(readFileSync(path, 'utf8')).toMatch(/kestrel/);
    // Another file under the same name gets its own copy; the same bytes again, the same copy.
    const other = (await (await post('notes/dropped.md', '# Dropped\n\nthe osprey dives\n')).json()) as { path: string };
    expect(other.path).not.toBe(path);
    expect(readFileSync(path, 'utf8')).toMatch(/kestrel/);
    expect(((await (await post('notes/dropped.md', '# Dropped\n\nthe kestrel hovers\n')).json()) as { path: string }).path).toBe(path);

    const c = await connect(host.port, host.token);
    await c.call('ingest', { paths: [path] });
    const { documents } = (await c.call('documents.page', { limit: 10 })).result as { documents: { doc_id: string }[] };
    c.close();
    const part = await fetch(`${base}/doc/${documents[0]!.doc_id}`, { headers: { cookie: `kb_token=${host.token}`, range: 'bytes=2-8' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('Dropped');
  });

  it('tells its windows when another process (a kb ingest beside it) changed the index', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/heron.md': '# Heron\n\nThe heron came back to the pond.\n' });
    const data = join(dir, 'data');
    const host = await kbServe(data);
    const window = await heard(host.port, host.token, 'changed');
    const r = await kbAsync(['ingest', join(dir, 'notes')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } });
    expect(r.code).toBe(0);
    expect(await window.event).toEqual({});
    window.close();
    await host.stop();
  });

  it('believes X-Forwarded-For only from a proxy named in serve.trusted_proxies, and limits one account guessed from many addresses (issue 50)', async () => {
    const hex = (i: number): string => i.toString(16).padStart(12, '0');
    const guesses = async (port: number, id: (i: number) => string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < 12; i++) {
        const headers = { authorization: `Bearer kb_${id(i)}_${'A'.repeat(43)}`, 'x-forwarded-for': `203.0.113.${i + 1}` };
        out.push((await fetch(`http://127.0.0.1:${port}/`, { headers })).status);
      }
      return out;
    };
    const served = async (serve: Record<string, unknown>): Promise<number> => {
      const dir = await tempDir();
      await writeTree(dir, { 'data/config.yaml': JSON.stringify({ serve: { public_url: 'https://kb.example.com', ...serve } }) });
      return (await kbServe(join(dir, 'data'))).port;
    };
    // No proxy named: a header anyone may write names no one; every guess here is loopback's.
    expect((await guesses(await served({}), hex)).slice(10)).toEqual([429, 429]);
    // A named proxy's forwarded addresses are believed: twelve clients, a wrong guess each…
    const proxied = await served({ trusted_proxies: ['127.0.0.1'] });
    expect(await guesses(proxied, (i) => hex(100 + i))).toEqual(Array(12).fill(401));
    // …but one account's token guessed from twelve addresses waits after ten.
    expect((await guesses(proxied, () => hex(7))).slice(10)).toEqual([429, 429]);
  });

  it('a browser without a token gets a sign-in page: the right token signs it in, a wrong one is said, other sites cannot post it', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    const base = `http://127.0.0.1:${host.port}`;
    const html = { accept: 'text/html,application/xhtml+xml' };
    const form = await fetch(`${base}/`, { headers: html });
    expect(form.status).toBe(401);
    expect(form.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self'/);
    const page = await form.text();
    expect(page).toMatch(/<input id="token" name="token" type="password"/);
    expect(page).not.toMatch(/role="alert"/);
    const post = (token: string, origin = base): Promise<Response> =>
      fetch(`${base}/sign-in`, {
        method: 'POST',
        redirect: 'manual',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }).toString(),
      });
    const wrong = await post('kb_nobody_0123456789abcdef');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/role="alert">kb does not know that token/);
    // Another site's page cannot sign a visitor in (or try tokens from their browser).
    expect((await post(host.token, 'http://evil.example')).status).toBe(403);
    const right = await post(` ${host.token}\n`);
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/');
    const cookie = right.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^kb_token=[^;]+; HttpOnly; SameSite=Strict/);
    const after = await fetch(`${base}/`, { headers: { ...html, cookie: cookie.split(';')[0]! } });
    expect(after.status).toBe(200);
    expect(await after.text()).not.toMatch(/Sign in to kb/);
    // A page whose account was removed comes back here, told why (lib/client.ts on close code 4001).
    expect(await (await fetch(`${base}/?signed_out=1`, { headers: html })).text()).toMatch(/You were signed out: your account was removed/);
    // A program asking without a token still gets the refusal in words, not a page.
    expect(await (await fetch(`${base}/`)).text()).toMatch(/sign in with your token/);
    // A link carrying a token, followed from another site: it asks before signing in (the link could be anyone's).
    // The address loses the token at once: the question is asked at /sign-in, the token kept for it
    // in a cookie that only /sign-in receives.
    const linked = await fetch(host.url, { redirect: 'manual', headers: { ...html, 'sec-fetch-site': 'cross-site' } });
    expect(linked.status).toBe(303);
    expect(linked.headers.get('location')).toBe('/sign-in');
    const pending = linked.headers.get('set-cookie')!;
    expect(pending).toMatch(/^kb_pending=[^;]+; HttpOnly; SameSite=Lax; Path=\/sign-in; Max-Age=300/);
    const asked = await fetch(`${base}/sign-in`, { headers: { ...html, cookie: pending.split(';')[0]! } });
    expect(asked.status).toBe(200);
    expect(asked.headers.get('set-cookie')).toBeNull();
    expect(await asked.text()).toMatch(/Sign in as this kb's owner\?/);
    // Yes: signed in, the waiting token forgotten.
    const yes = await post(host.token);
    expect(yes.headers.get('set-cookie')).toMatch(/kb_token=.*kb_pending=; .*Max-Age=0/);
    // A made-up waiting token asks nothing.
    const forged = await fetch(`${base}/sign-in`, { headers: { ...html, cookie: 'kb_pending=kb_nobody_0123456789abcdef' } });
    expect(forged.status).toBe(401);
    expect(await forged.text()).toMatch(/kb does not know that token/);
    // Opened by the person themselves (typed, pasted, a bookmark): signed in at once, as before.
    expect((await fetch(host.url, { headers: { ...html, 'sec-fetch-site': 'none' } })).headers.get('set-cookie')).toMatch(/^kb_token=/);
    await host.stop();
  });

  it('answers only its own page: token, Host and Origin are checked', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    const base = `http://127.0.0.1:${host.port}`;
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong-token-wrong-token-wrong-tok`)).status).toBe(401);
    const page = await fetch(host.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toMatch(/kb_token=.*HttpOnly; SameSite=Strict/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    // A page on another site that resolves its name to 127.0.0.1 (DNS rebinding) sends its own Host.
    const { request } = await import('node:http');
    const rebound = await new Promise<number>((res) =>
      request({ host: '127.0.0.1', port: host.port, path: `/?token=${host.token}`, headers: { host: `evil.example:${host.port}` } }, (r) =>
        res(r.statusCode!),
      ).end(),
    );
    expect(rebound).toBe(403);
    await expect(connect(host.port, host.token, 'http://evil.example')).rejects.toThrow(/403/);
    await expect(connect(host.port, 'nope')).rejects.toThrow(/401/);
    const ok = await connect(host.port, host.token, `http://localhost:${host.port}`);
    ok.close();
  });
});
