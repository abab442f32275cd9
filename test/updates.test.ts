// The installed app's updates, as a dry run: electron-updater's own updater (the .deb one) looks at a
// feed served on 127.0.0.1, sees a newer version, downloads it and checks its hash; the app's flow
// (src/main/updates.ts) then says so and asks — after the running ingest, never during it. Electron's
// network stack is played by Node's http under electron-updater's own download code, and the installer the answer "restart" would run is the one step not taken.
import { createHash } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DebUpdater } from 'electron-updater';
import { ElectronHttpExecutor } from 'electron-updater/out/electronHttpExecutor.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppUpdates, backgroundWork, CHECK_EVERY_MS, countingLongWork, type UpdateHost } from '../src/main/updates.js';
import { tempDir } from './helpers.js';

const NEW = Buffer.from('the bytes of kb 9.9.9 as a .deb');

/** A generic update feed offering kb 9.9.9 for Linux; what it was asked. */
async function feed(): Promise<{ url: string; asked: string[]; server: Server }> {
  const asked: string[] = [];
  const sha512 = createHash('sha512').update(NEW).digest('base64');
  const yml = `version: 9.9.9\nfiles:\n  - url: kb-linux-amd64.deb\n    sha512: ${sha512}\n    size: ${NEW.length}\npath: kb-linux-amd64.deb\nsha512: ${sha512}\nreleaseDate: '2026-11-27T12:00:00.000Z'\n`;
  const server = createServer((req, res) => {
    asked.push(req.url ?? '');
    if (req.url?.startsWith('/latest-linux.yml')) res.writeHead(200, { 'content-type': 'text/yaml' }).end(yml);
    else if (req.url === '/kb-linux-amd64.deb') res.writeHead(200, { 'content-length': NEW.length }).end(NEW);
    else res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked, server };
}

/** electron-updater's own downloads (redirects, hashes, cancelling), over Node's http instead of Electron's net. */
class NodeNet extends ElectronHttpExecutor {
  override createRequest(options: object, callback: (response: unknown) => void): Electron.ClientRequest {
    return request(options, callback) as unknown as Electron.ClientRequest;
  }
}

/** electron-updater's .deb updater for an installed kb 0.1.0, on the feed, with Node's HTTP. */
async function updater(url: string): Promise<DebUpdater> {
  const dir = await tempDir();
  // What electron-builder writes into the package (resources/app-update.yml) for a generic feed.
  writeFileSync(join(dir, 'app-update.yml'), `provider: generic\nurl: ${url}\nupdaterCacheDirName: kb-updater\n`);
  const u = new DebUpdater(null, {
    version: '0.1.0',
    name: 'kb',
    isPackaged: true,
    appUpdateConfigPath: join(dir, 'app-update.yml'),
    userDataPath: join(dir, 'user'),
    baseCachePath: join(dir, 'cache'),
    whenReady: () => Promise.resolve(),
    relaunch: () => undefined,
    quit: () => undefined,
    onQuit: () => undefined,
  });
  (u as unknown as { httpExecutor: NodeNet }).httpExecutor = new NodeNet();
  u.logger = null;
  return u;
}

function host(over: Partial<UpdateHost> = {}): UpdateHost & { said: string[]; asked: string[]; stamps: (number | null)[] } {
  const said: string[] = [];
  const asked: string[] = [];
  const stamps: (number | null)[] = [];
  let last: number | null = null;
  return {
    said,
    asked,
    stamps,
    enabled: async () => true,
    lastChecked: () => last,
    checked: (at) => {
      last = at;
      stamps.push(at);
    },
    busy: () => false,
    ask: async (v) => {
      asked.push(v);
      return 'later';
    },
    tell: (m) => said.push(m),
    now: () => 1_800_000_000_000,
    ...over,
  };
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

describe('updates of the installed app', () => {
  it('finds a newer version on the feed, downloads it in the background, says so and asks; "later" installs nothing', async () => {
    const f = await feed();
    servers.push(f.server);
    const u = await updater(f.url);
    const install = vi.spyOn(u, 'quitAndInstall').mockImplementation(() => undefined);
    const h = host();
    const updates = new AppUpdates(u, h);
    expect(await updates.check()).toBe('checked');
    await vi.waitFor(() => expect(h.asked).toEqual(['9.9.9']), { timeout: 10_000 });
    expect(h.said).toContain('kb 9.9.9 is available: downloading it in the background');
    expect(f.asked).toContain('/kb-linux-amd64.deb');
    expect(install).not.toHaveBeenCalled();
    // Put off: looked for again at the next start, where the download is found and offered again.
    expect(h.stamps).toEqual([1_800_000_000_000, null]);
  });

  it('asks only once the running ingest is done, and installs on "restart"', async () => {
    const f = await feed();
    servers.push(f.server);
    const u = await updater(f.url);
    const install = vi.spyOn(u, 'quitAndInstall').mockImplementation(() => undefined);
    const work = { request: vi.fn(), cancel: vi.fn() };
    let finish = (): void => undefined;
    work.request.mockImplementation((method: string) => ({
      id: 1,
      result: method === 'ingest' ? new Promise<void>((r) => (finish = r)) : Promise.resolve({}),
    }));
    const counted = countingLongWork(work);
    void counted.relay.request('ingest', { paths: ['/tmp/notes'] });
    void counted.relay.request('search', { query: 'heron' });
    expect(counted.busy()).toBe(true);
    const h = host({ busy: counted.busy, ask: async (v) => (h.asked.push(v), 'restart') });
    const updates = new AppUpdates(u, h, 20);
    await updates.check();
    await vi.waitFor(() => expect(f.asked).toContain('/kb-linux-amd64.deb'), { timeout: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    expect(h.asked).toEqual([]);
    finish();
    await vi.waitFor(() => expect(install).toHaveBeenCalledTimes(1), { timeout: 5_000 });
    expect(h.asked).toEqual(['9.9.9']);
    expect(counted.busy()).toBe(false);
  });

  it("waits for the worker's own long work too (embedding for a new model, OCR), as its background events tell", async () => {
    const f = await feed();
    servers.push(f.server);
    const u = await updater(f.url);
    const install = vi.spyOn(u, 'quitAndInstall').mockImplementation(() => undefined);
    const work = backgroundWork();
    work.note({ task: 'embedding', phase: 'running', done: 10, total: 900 });
    work.note({ task: 'ocr', phase: 'running', done: 0, total: 3 });
    const h = host({ busy: work.busy, ask: async (v) => (h.asked.push(v), 'restart') });
    await new AppUpdates(u, h, 20).check();
    await vi.waitFor(() => expect(f.asked).toContain('/kb-linux-amd64.deb'), { timeout: 10_000 });
    work.note({ task: 'embedding', phase: 'done', done: 900, total: 900 });
    await new Promise((r) => setTimeout(r, 200));
    expect(h.asked).toEqual([]);
    work.note({ task: 'ocr', phase: 'failed', done: 1, total: 3 });
    await vi.waitFor(() => expect(install).toHaveBeenCalledTimes(1), { timeout: 5_000 });
    // A worker that died took its work with it: nothing is left to wait for.
    work.note({ task: 'transcribing', phase: 'running', done: 0, total: 1 });
    work.restarted();
    expect(work.busy()).toBe(false);
  });

  it('looks at most once a day, and not at all with ui.updates off', async () => {
    const f = await feed();
    servers.push(f.server);
    const u = await updater(f.url);
    vi.spyOn(u, 'checkForUpdates').mockResolvedValue(null);
    let now = 1_800_000_000_000;
    const h = host({ now: () => now });
    const updates = new AppUpdates(u, h);
    expect(await updates.check()).toBe('checked');
    now += CHECK_EVERY_MS - 60_000;
    expect(await updates.check()).toBe('not due');
    now += 120_000;
    expect(await updates.check()).toBe('checked');
    expect(u.checkForUpdates).toHaveBeenCalledTimes(2);
    const off = new AppUpdates(u, host({ enabled: async () => false }));
    expect(await off.check()).toBe('off');
    expect(u.checkForUpdates).toHaveBeenCalledTimes(2);
  });

  it('says when the feed cannot be reached, and the app carries on', async () => {
    const u = await updater('http://127.0.0.1:1');
    const h = host();
    expect(await new AppUpdates(u, h).check()).toBe('failed');
    expect(h.said.join('\n')).toMatch(/looking for updates failed/);
  });
});
