// Bringing one's own models in the app, in Chromium through kb serve: switching search by meaning to a
// model Ollama serves (the stub on 127.0.0.1) with progress while searches go on, and back to kb's
// own; a reranker made the one in use, and search-as-you-type reranking only once typing pauses.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestModel } from '../test/support/make-test-model.js';
import { type OllamaStub, startOllamaStub } from '../test/support/ollama-stub.js';
import { corporaDir, kb, kbServe, repoRoot, writeTree } from '../test/helpers.js';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';

if (!hasChromium) console.warn(`model UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const corpora = corporaDir();
const ARTIFACTS = join(repoRoot, 'test-results');

let browser: Browser;
let ollama: OllamaStub;
let dir: string;
let data: string;

beforeAll(async () => {
  if (!hasChromium || !corpora) return;
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  ollama = await startOllamaStub({ models: ['llama3.2:latest', 'nomic-embed-text:latest', 'bge-m3:latest'] });
  dir = await mkdtemp(join(tmpdir(), 'kb-models-ui-')); // for both tests (tempDir() goes after each)
  const files: Record<string, string> = { 'notes/walrus.md': '# Walruses\n\nThe walrus swims in the Arctic sea and eats clams.\n' };
  for (let i = 0; i < 400; i++) files[`notes/n${i}.txt`] = `Note ${i} about topic ${i % 17}: the quick brown fox number ${i}.`;
  await writeTree(dir, files);
  data = join(dir, 'data');
  const env = { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') };
  const st = makeTestModel({ arch: 'tiny', out: join(dir, 'tiny-st'), sentenceTransformers: { pooling: 'mean' } });
  const ce = makeTestModel({ arch: 'tiny', out: join(dir, 'ce'), crossEncoder: true });
  for (const args of [
    ['models', 'import', st, '--as', 'tiny-mean'],
    ['models', 'import', ce, '--as', 'ms-marco-MiniLM-L-6-v2'],
    ['models', 'use', 'tiny-mean'],
    ['ingest', join(dir, 'notes')],
  ]) {
    expect(kb(args, { env }).code).toBe(0);
  }
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await ollama?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<{
  page: Page;
  errors: string[];
  searches: { query: string; rerank?: boolean }[];
  url: string;
  stop: () => Promise<void>;
}> {
  process.env.KB_OLLAMA_HOST = ollama.url;
  const host = await kbServe(data).finally(() => delete process.env.KB_OLLAMA_HOST);
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors: string[] = [];
  const searches: { query: string; rerank?: boolean }[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => {
      const m = JSON.parse(String(f.payload)) as { method?: string; params?: { query: string; rerank?: boolean } };
      if (m.method === 'search' && m.params) searches.push(m.params);
    }),
  );
  await page.goto(host.url);
  await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
  return { page, errors, searches, url: host.url, stop: host.stop };
}

const nav = (page: Page, name: string) => page.locator('header nav').getByRole('button', { name, exact: true });

describe.skipIf(!hasChromium || !corpora)('your own models in the app (kb serve)', () => {
  it('switches search by meaning to an Ollama model with progress, searches answering meanwhile, and back', async () => {
    const { page, errors, url, stop } = await open();
    await nav(page, 'Models').click();
    const inUse = page.locator('tr', { has: page.locator('.badge', { hasText: 'in use' }) });
    await expect.poll(() => inUse.first().innerText()).toMatch(/tiny-mean[\s\S]*imported from/);
    expect(await page.locator('tr[data-model="ms-marco-MiniLM-L-6-v2"]').innerText()).toMatch(/re-scores the best hits[\s\S]*installed/);
    await page.getByLabel('Ollama embedding model', { exact: true }).fill('nomic-embed-text');
    ollama.set({ models: ['llama3.2:latest', 'nomic-embed-text:latest'], embed: { delayMs: 150 } });
    await page.getByRole('button', { name: 'Use from Ollama' }).click();
    const status = page.getByRole('status', { name: 'Switching to ollama:nomic-embed-text' });
    await expect.poll(() => status.innerText()).toMatch(/embedding \d+ of \d+ passages; searches use the old vectors/);
    await page.screenshot({ path: join(ARTIFACTS, 'models-switching.png') });
    // A search meanwhile, in another window, answers by words and meaning from the old vectors.
    const other = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await other.goto(url);
    await other.getByLabel('Search').fill('walrus');
    await expect.poll(() => other.locator('.hit .label').first().innerText()).toMatch(/^walrus\.md/);
    expect(await other.locator('.meta').innerText()).not.toMatch(/by words only/);
    await other.close();
    await expect.poll(() => status.count()).toBe(1);
    await expect
      .poll(() => page.locator('.note').innerText(), { timeout: 60_000 })
      .toMatch(/Searching by meaning with ollama:nomic-embed-text: embedded \d+ passages/);
    await expect.poll(() => inUse.first().innerText()).toMatch(/ollama:nomic-embed-text[\s\S]*served by Ollama/);
    ollama.set({ models: ['llama3.2:latest', 'nomic-embed-text:latest'] });
    await page.screenshot({ path: join(ARTIFACTS, 'models-ollama.png') });
    await nav(page, 'Search').click();
    await page.getByLabel('Search').fill('walrus');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^walrus\.md/);
    await expect.poll(() => page.locator('.meta').innerText()).not.toMatch(/by words only/);
    // And back to kb's own model.
    await nav(page, 'Models').click();
    await page.locator('tr[data-model="tiny-mean"]').getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.locator('.note').innerText(), { timeout: 60_000 }).toMatch(/Searching by meaning with tiny-mean/);
    await expect.poll(() => inUse.first().innerText()).toMatch(/tiny-mean/);
    expect(errors).toEqual([]);
    await stop();
  }, 120_000);

  it('a reranker made the one in use reranks only once typing pauses, and says so under Explain', async () => {
    const { page, errors, searches, stop } = await open();
    await nav(page, 'Models').click();
    await page.locator('tr[data-model="ms-marco-MiniLM-L-6-v2"]').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'models-view.png'), fullPage: true });
    await page.locator('tr[data-model="ms-marco-MiniLM-L-6-v2"]').getByRole('button', { name: 'Use' }).click();
    await expect.poll(() => page.locator('.note').innerText()).toMatch(/reranked by ms-marco-MiniLM-L-6-v2 once typing pauses/);
    await expect.poll(() => page.locator('tr[data-model="ms-marco-MiniLM-L-6-v2"]').innerText()).toMatch(/in use/);
    await nav(page, 'Settings').click();
    expect(await page.getByLabel('Rerank results').isChecked()).toBe(true);
    await nav(page, 'Search').click();
    await page.getByText('Explain ranking').click();
    searches.splice(0);
    await page.getByLabel('Search').pressSequentially('quick brown fox', { delay: 40 });
    await expect.poll(() => page.locator('.hit').first().locator('.explain').innerText()).toMatch(/reranked[\s\S]*was #\d+/);
    expect(await page.locator('.meta').innerText()).toMatch(/· reranked/);
    const typed = searches.filter((s) => s.rerank === false);
    const reranked = searches.filter((s) => s.rerank === true);
    // Every keystroke asked for fused hits; only the pause after the last one asked for reranking.
    expect(typed.length).toBeGreaterThanOrEqual(3);
    expect(reranked.map((s) => s.query)).toEqual(['quick brown fox']);
    await page.screenshot({ path: join(ARTIFACTS, 'models-rerank.png') });
    // Turned off in Settings: no more reranked searches.
    await nav(page, 'Settings').click();
    await page.getByLabel('Rerank results').click();
    await expect.poll(() => page.getByLabel('Rerank results').isChecked()).toBe(false);
    await nav(page, 'Search').click();
    searches.splice(0);
    await page.getByLabel('Search').fill('walrus');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^walrus\.md/);
    await page.waitForTimeout(600);
    expect(searches.filter((s) => s.rerank === true)).toEqual([]);
    expect(await page.locator('.hit').first().locator('.explain').innerText()).not.toMatch(/reranked/);
    expect(errors).toEqual([]);
    await stop();
  }, 120_000);
});
