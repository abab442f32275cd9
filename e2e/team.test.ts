// The app connected to a team's kb server (issue 35), walked in Chromium: a person's own kb serve (their
// index) connects in Settings to a team server on PostgreSQL with their token; a search shows a hit from
// their index and one from the server side by side, a server hit opens at its lines, ask answers from
// the server's documents, the Library is the server's, and a drop onto one of the server's collections
// lands there. Skipped, saying so, without Chromium or a PostgreSQL server.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/index.js';
import { kb, kbServe, repoRoot, tempDir, writeTree } from '../test/helpers.js';
import { startOllamaStub, type OllamaStub } from '../test/support/ollama-stub.js';
import { connect } from '../test/support/ws-client.js';
import { type PgCluster, postgresAvailable, startCluster } from '../test/support/postgres.js';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';

const ARTIFACTS = join(repoRoot, 'test-results');
const canRun = hasChromium && postgresAvailable();
if (!hasChromium) console.warn(`team UI test skipped: no Chromium at ${CHROMIUM}`);

let browser: Browser;
let cluster: PgCluster;
let stub: OllamaStub;
beforeAll(async () => {
  if (!canRun) return;
  browser = await launchChromium();
  cluster = await startCluster();
  stub = await startOllamaStub({ models: ['llama3.2'], chat: { tokens: ['The heron release ships on Friday [1].'] } });
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await stub?.close();
  cluster?.stop();
});

const nav = (page: Page, name: string) => page.locator('header nav').getByRole('button', { name });

describe.skipIf(!canRun)('the app connected to a team server', () => {
  it('searches both indexes side by side, opens a server hit, asks the server, shows its Library, and drops into its collection', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'team/plan.md': '# Plan\n\nShip the heron release on Friday.\nThe changelog waits for review.\n',
      'secret/diary.md': '# Diary\n\nThe heron came back to the pond.\n',
      'mine/heron-watch.md': '# Heron watch\n\nA grey heron at the canal, my own note.\n',
    });
    // The team's server: two collections, bob an editor of one.
    const url = await cluster.database();
    const admin = await openEngine({ dataDir: join(dir, 'server-data'), config: { store: { url } } });
    await admin.addCollection(join(dir, 'team'), { name: 'team' });
    await admin.addCollection(join(dir, 'secret'), { name: 'secret' });
    const { token } = await admin.accounts.addUser('bob', 'editor');
    await admin.accounts.grant('team', 'bob');
    admin.close();
    const team = await kbServe(join(dir, 'server-data'), 0, { KB_STORE: url, KB_OLLAMA_HOST: stub.url });
    // Bob's own kb, with his own note.
    const env = { KB_DATA_DIR: join(dir, 'bob-data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'mine')], { env }).code).toBe(0);
    const own = await kbServe(join(dir, 'bob-data'), 0, { KB_OLLAMA_HOST: stub.url });

    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(own.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/1 document/);

    // Settings → Team server.
    await nav(page, 'Settings').click();
    const form = page.getByTestId('team-server');
    await form.getByLabel('Server address').fill(`http://127.0.0.1:${team.port}`);
    await form.getByLabel('Your token').fill('kb_000000000000_' + 'D'.repeat(43));
    await form.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => form.getByRole('alert').innerText()).toMatch(/did not accept the token/);
    await form.getByLabel('Your token').fill(token);
    await form.getByRole('button', { name: 'Connect' }).click();
    await expect.poll(() => form.locator('[data-connected="true"]').innerText()).toMatch(/as bob \(editor\)/);
    await form.screenshot({ path: join(ARTIFACTS, 'team-settings.png') });

    // A hit from each index, side by side; the server's says where it came from.
    await page.getByLabel('Search').fill('heron');
    await expect.poll(() => page.locator('.hit').count()).toBe(2);
    const titles = await page.locator('.hit .title').allInnerTexts();
    expect(titles.some((t) => /Heron watch/.test(t) && !/127\.0\.0\.1/.test(t))).toBe(true);
    expect(titles.some((t) => /Plan/.test(t) && new RegExp(`127\\.0\\.0\\.1:${team.port}`).test(t))).toBe(true);
    expect(titles.join(' ')).not.toMatch(/Diary/); // not granted to bob
    await page.screenshot({ path: join(ARTIFACTS, 'team-search-both.png') });

    // The server's hit opens at its lines, its bytes fetched from the server.
    await page.locator('.hit', { has: page.locator('.from') }).click();
    await expect.poll(async () => (await page.locator('.line.hl').allInnerTexts()).join(' ')).toMatch(/heron release on Friday/);
    await page.screenshot({ path: join(ARTIFACTS, 'team-open-server-hit.png') });

    // Ask answers from the server's documents, bob's rights there.
    await nav(page, 'Ask').click();
    await page.getByLabel('Question').fill('When does the heron release ship?');
    await page.getByLabel('Question').press('Enter');
    await page.locator('.ask-answer button.cite').waitFor();
    expect(await page.locator('.ask-sources li').first().innerText()).toMatch(/\[1\] plan\.md/);
    await page.screenshot({ path: join(ARTIFACTS, 'team-ask.png') });
    await nav(page, 'Ask').click();

    // The Library is the server's.
    await nav(page, 'Library').click();
    await expect.poll(() => page.locator('section.library').innerText()).toMatch(/plan\.md/);
    expect(await page.locator('section.library').innerText()).not.toMatch(/diary|heron-watch/);
    expect(await page.locator('[data-server]').innerText()).toMatch(/on the team server at 127\.0\.0\.1/);
    expect(await page.locator('footer').innerText()).toMatch(/team server 127\.0\.0\.1/);
    await page.screenshot({ path: join(ARTIFACTS, 'team-library.png') });

    // A drop onto the server's collection: the places say where it can go; it lands there.
    const dt = await page.evaluateHandle(() => {
      const { DataTransfer } = globalThis as unknown as { DataTransfer: new () => { items: { add(f: File): void } } };
      const d = new DataTransfer();
      d.items.add(new File(['The kingfisher nests by the weir.\n'], 'minutes.txt', { type: 'text/plain' }));
      return d;
    });
    await page.dispatchEvent('main', 'dragenter', { dataTransfer: dt });
    const place = page.locator('[data-drop-to="team"]');
    await place.waitFor();
    expect(await page.locator('.drop-target li').allInnerTexts()).toEqual(['This computer', `team on 127.0.0.1:${team.port}`]);
    await page.dispatchEvent('[data-drop-to="team"]', 'dragover', { dataTransfer: dt });
    await page.screenshot({ path: join(ARTIFACTS, 'team-drop-places.png') });
    await page.dispatchEvent('[data-drop-to="team"]', 'drop', { dataTransfer: dt });
    await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.ingest-summary .ingest-head span').innerText()).toMatch(/^1 added/);
    await page.locator('.ingest-summary').getByRole('button', { name: 'Close' }).click();
    await nav(page, 'Search').click();
    await page.getByLabel('Search').fill('kingfisher');
    await expect.poll(() => page.locator('.hit .from').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'team-dropped.png') });

    expect(errors).toEqual([]);
    await page.close();
    await own.stop();
    await team.stop();
  }, 120_000);
  it("is signed in to as a team's editor and reader: the editor adds files into a collection they choose, the reader is shown nothing to change", async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'team/plan.md': '# Plan\n\nShip the heron release on Friday.\n',
      'edit/drafts.md': '# Drafts\n\nThe kingfisher draft.\n',
      'secret/diary.md': '# Diary\n\nThe otter came back.\n',
    });
    const url = await cluster.database();
    const admin = await openEngine({ dataDir: join(dir, 'server-data'), config: { store: { url } } });
    for (const c of ['team', 'edit', 'secret']) await admin.addCollection(join(dir, c), { name: c });
    const ed = (await admin.accounts.addUser('ed', 'editor')).token;
    const rita = (await admin.accounts.addUser('rita', 'reader')).token;
    for (const [c, u] of [
      ['team', 'ed'],
      ['edit', 'ed'],
      ['team', 'rita'],
    ] as const)
      await admin.accounts.grant(c, u);
    admin.close();
    const team = await kbServe(join(dir, 'server-data'), 0, { KB_STORE: url, KB_OLLAMA_HOST: stub.url });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
      await page.goto(`http://127.0.0.1:${team.port}/?token=${ed}`);
      // The server's set-up is its admin's: no Models view.
      await expect.poll(() => page.locator('header nav').innerText()).toMatch(/Library/);
      await expect.poll(() => page.locator('header nav').innerText()).not.toMatch(/Models/);
      await nav(page, 'Library').click();
      const into = page.getByLabel('Into the collection');
      await into.waitFor();
      expect(await into.locator('option').allInnerTexts()).toEqual(['into edit', 'into team']);
      await into.selectOption('edit');
      await page.setInputFiles('input[aria-label="Choose files"]', {
        name: 'walk-note.md',
        mimeType: 'text/markdown',
        buffer: Buffer.from('# Walk note\n\nThe sandpiper came by.\n'),
      });
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('.ingest-summary .ingest-head span').innerText()).toMatch(/^1 added/);
      await page.screenshot({ path: join(ARTIFACTS, 'team-editor-added.png') });
      await expect.poll(() => page.locator('section.library').innerText()).toMatch(/Walk note/);
      // Where it went: the collection chosen, named as he sees it.
      const client = await connect(team.port, ed);
      const listed = (await client.call('documents.page', { limit: 50 })).result;
      client.close();
      expect(JSON.stringify(listed)).toMatch(/"\/edit\/uploads\/[0-9a-f]{16}\/walk-note\.md"/);
      expect(JSON.stringify(listed)).not.toContain(dir);
      // Nothing opens in an editor on his machine: the files are the server's.
      await nav(page, 'Search').click();
      await page.getByLabel('Search').fill('sandpiper');
      await page.locator('.hit').first().click();
      await page.locator('.hit-actions').waitFor();
      expect(await page.locator('.hit-actions').innerText()).not.toMatch(/Open in editor/);
      await page.close();

      const reader = await browser.newPage({ viewport: { width: 1200, height: 760 } });
      await reader.goto(`http://127.0.0.1:${team.port}/?token=${rita}`);
      await nav(reader, 'Library').click();
      await expect.poll(() => reader.locator('section.library').innerText()).toMatch(/plan\.md/);
      const shown = await reader.locator('section.library').innerText();
      expect(shown).not.toMatch(/Add files|Re-index|Remove|drafts|diary/);
      await reader.screenshot({ path: join(ARTIFACTS, 'team-reader-library.png') });
      await reader.close();
    } finally {
      await team.stop();
    }
  }, 120_000);
});
