// Setting kb up without a terminal, in Chromium through kb serve: the first-run steps, the Models,
// Folders, Settings and Status views, a recording that waits for a speech model, and what every hit
// offers. A stub hub and a stub Ollama on 127.0.0.1 stand in for the network.
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestModel } from '../test/support/make-test-model.js';
import { makePdf } from '../test/support/make-test-pdf.js';
import { type HubStub, startHubStub } from '../test/support/hub-stub.js';
import { type OllamaStub, startOllamaStub } from '../test/support/ollama-stub.js';
import { corporaDir, kb, kbServe, repoRoot, tempDir, writeTree } from '../test/helpers.js';

if (!hasChromium) console.warn(`setup UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const corpora = corporaDir();
const ARTIFACTS = join(repoRoot, 'test-results');

let browser: Browser;
let hub: HubStub | null = null;
let ollama: OllamaStub;
let modelDir = '';
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
  ollama = await startOllamaStub({ models: ['llama3.2', 'qwen2.5:7b'] });
  if (corpora) {
    modelDir = makeTestModel({ arch: 'minilm-l6', out: join(await mkdtemp(join(tmpdir(), 'kb-hub-')), 'minilm') });
    // Slow enough to watch (about 11 s for the 87 MB random-weight model), fast enough for a test.
    hub = await startHubStub(modelDir, { bytesPerSecond: 8 * 1024 * 1024, speechModelBytes: 50 * 1024 * 1024 });
  }
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await hub?.close();
  await ollama?.close();
  if (modelDir) await rm(dirname(modelDir), { recursive: true, force: true });
});

/** kb serve on a data dir (with this config.yaml), the stubs as its network, and a page on it. */
async function open(
  data: string,
  opts: { config?: string; ollama?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<{ page: Page; errors: string[]; host: Awaited<ReturnType<typeof kbServe>> }> {
  mkdirSync(data, { recursive: true });
  if (opts.config) writeFileSync(join(data, 'config.yaml'), opts.config);
  const env = {
    KB_HF_ENDPOINT: hub?.url ?? 'http://127.0.0.1:9',
    KB_OLLAMA_HOST: opts.ollama === false ? 'http://127.0.0.1:9' : ollama.url,
  };
  Object.assign(process.env, env);
  const host = await kbServe(data).finally(() => {
    delete process.env.KB_HF_ENDPOINT;
    delete process.env.KB_OLLAMA_HOST;
  });
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1400, height: 900 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(host.url);
  await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
  return { page, errors, host };
}

const nav = (page: Page, name: string) => page.locator('header nav').getByRole('button', { name, exact: true });

describe.skipIf(!hasChromium)('setting kb up in the browser (kb serve)', () => {
  it.skipIf(!corpora)(
    'first run: add files with the picker, add a folder (its error, then for real), get the model with progress and Cancel; each step goes once done',
    async () => {
      const dir = await tempDir();
      await writeTree(dir, {
        'notes/garden.md': '# Garden\n\nTomatoes need sun and water every day.\n',
        'pick/recipe.txt': 'Bake the bread at 220 degrees for forty minutes.\n',
      });
      // bge-small-en-v1.5 has no published checksum in kb's registry, so the stub's random weights install.
      const { page, errors } = await open(join(dir, 'data'), { config: 'embedding:\n  model: bge-small-en-v1.5\n', ollama: false });
      const steps = page.locator('.first-run .steps > li');
      await expect
        .poll(() => steps.evaluateAll((li) => li.map((l) => l.getAttribute('data-step'))))
        .toEqual(['files', 'folder', 'model', 'ollama']);
      expect(await page.locator('[data-step="ollama"]').innerText()).toMatch(/ollama serve.*ollama\.com\/download/s);
      await page.screenshot({ path: join(ARTIFACTS, 'setup-first-run.png') });

      await page.getByLabel('Choose files').setInputFiles(join(dir, 'pick/recipe.txt'));
      await page.locator('.ingest[data-state="done"]').waitFor();
      await expect.poll(() => page.locator('[data-step]').count()).toBe(3);
      await page.getByLabel('Search').fill('bread');
      await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^recipe\.txt · L1/);
      await page.getByLabel('Search').fill('');

      await page.getByLabel('Folder path').fill(join(dir, 'nowhere'));
      await page.getByRole('button', { name: 'Add folder' }).click();
      await expect.poll(() => page.locator('[data-step="folder"] .error').innerText()).toMatch(/nowhere/);
      await page.getByLabel('Folder path').fill(join(dir, 'notes'));
      await page.getByRole('button', { name: 'Add folder' }).click();
      await expect
        .poll(() => page.locator('[data-step]').evaluateAll((li) => li.map((l) => l.getAttribute('data-step'))))
        .toEqual(['model', 'ollama']);

      // The model: progress at least every 500 ms, Cancel within a second, nothing installed.
      await page.getByRole('button', { name: /Search by meaning: get the model/ }).click();
      const bytes = page.locator('.pull-bytes');
      await bytes.waitFor();
      const seen: { t: number; text: string }[] = [];
      for (let i = 0; i < 12; i++) {
        seen.push({ t: Date.now(), text: await bytes.innerText() });
        await page.waitForTimeout(250);
      }
      const changes = seen.filter((s, i) => i > 0 && s.text !== seen[i - 1]!.text);
      expect(changes.length).toBeGreaterThanOrEqual(5);
      await page.screenshot({ path: join(ARTIFACTS, 'setup-model-progress.png') });
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByText(/Cancelled: bge-small-en-v1\.5 was not installed/).waitFor();
      expect(Date.now() - t0).toBeLessThan(1000);
      await nav(page, 'Models').click();
      await expect.poll(() => page.locator('tr[data-model="bge-small-en-v1.5"]').innerText()).toMatch(/not installed/);
      await nav(page, 'Search').click();

      // Again, to the end: every passage gets its vector in the background and search turns hybrid.
      await page.getByRole('button', { name: /Search by meaning: get the model/ }).click();
      await page.locator('footer').getByText('search by meaning is on').waitFor({ timeout: 60_000 });
      await expect
        .poll(() => page.locator('[data-step]').evaluateAll((li) => li.map((l) => l.getAttribute('data-step'))))
        .toEqual(['ollama']);
      await page.getByLabel('Search').fill('tomatoes');
      await expect.poll(() => page.locator('.meta').innerText()).not.toMatch(/by words only/);
      expect(errors).toEqual([]);
    },
    120_000,
  );

  it.skipIf(!corpora)(
    'a recording waiting for a speech model is found by its name, says so, and offers the model, in the hits and the Library',
    async () => {
      const dir = await tempDir();
      mkdirSync(join(dir, 'in'));
      copyFileSync(join(corpora!, 'audio/jfk.mp3'), join(dir, 'in/jfk.mp3'));
      const data = join(dir, 'data');
      expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
      const { page } = await open(data);
      await page.getByLabel('Search').fill('jfk');
      const hit = page.locator('.hit').first();
      await expect.poll(() => hit.innerText()).toMatch(/jfk\.mp3[\s\S]*waiting for a speech model/);
      expect(await hit.getByRole('button', { name: 'Get the speech model (whisper-base.en)' }).count()).toBe(1);
      await hit.click();
      expect(await page.locator('.viewer [role="note"]').innerText()).toMatch(/waiting for a speech model/);
      expect(await page.locator('.viewer audio').getAttribute('data-end')).toMatch(/^11\./);
      // The Library says the same, with the same button; pressing it downloads with progress and Cancel.
      await nav(page, 'Library').click();
      const row = page.locator('.library tr', { hasText: 'jfk.mp3' });
      expect(await row.locator('.status').innerText()).toBe('waiting');
      await row.getByRole('button', { name: /Get the speech model/ }).click();
      await row.locator('.pull-bytes').waitFor();
      await row.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => row.innerText()).toMatch(/Cancelled: whisper-base\.en was not installed/);
    },
    60_000,
  );

  it('settings: the Ollama model from the server’s list, a live change said as such, a wrong one refused, the theme applied, config.yaml keeping its comments', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    const { page } = await open(data, { config: '# my kb\nask:\n  top: 8 # passages\n' });
    await nav(page, 'Settings').click();
    await expect.poll(() => page.getByLabel('Ollama model').locator('option').allInnerTexts()).toEqual(['llama3.2', 'qwen2.5:7b']);
    await page.getByLabel('Ollama model').selectOption('qwen2.5:7b');
    await expect.poll(() => page.locator('[data-note="ask.model"]').innerText()).toMatch(/in effect now/);
    // Refused in words, the setting's name not repeated twice (it stands beside the field).
    await page.getByLabel('Passages per question').fill('0');
    await page.getByLabel('Passages per question').blur();
    await expect.poll(() => page.locator('[data-note="ask.top"]').innerText()).toBe('Not saved: at least 1 passage.');
    await page.getByLabel('Passages per question').fill('12');
    await page.getByLabel('Passages per question').blur();
    await expect.poll(() => page.locator('[data-note="ask.top"]').innerText()).toMatch(/^Saved 12: in effect now/);
    // Ollama's address: only HTTP is accepted; emptied, the default comes back — saved, and said so.
    const host = page.getByLabel('Ollama address');
    await host.fill('ftp://example.com:11434');
    await host.press('Enter');
    await expect.poll(() => page.locator('[data-note="ask.ollama_host"]').innerText()).toMatch(/^Not saved: Ollama is reached over HTTP/);
    expect(await page.locator('[data-note="ask.ollama_host"]').innerText()).not.toMatch(/ask\.ollama_host/);
    await host.fill('http://127.0.0.1:11500');
    await host.press('Enter');
    await expect.poll(() => page.locator('[data-note="ask.ollama_host"]').innerText()).toMatch(/^Saved http:\/\/127\.0\.0\.1:11500/);
    expect(readFileSync(join(data, 'config.yaml'), 'utf8')).toMatch(/ollama_host: http:\/\/127\.0\.0\.1:11500/);
    await host.fill('');
    await host.press('Enter');
    await expect
      .poll(() => page.locator('[data-note="ask.ollama_host"]').innerText())
      .toMatch(/^Back to the default, http:\/\/127\.0\.0\.1:11434/);
    expect(await host.inputValue()).toBe('http://127.0.0.1:11434');
    expect(readFileSync(join(data, 'config.yaml'), 'utf8')).not.toMatch(/ollama_host/);
    await page.getByLabel('Theme').selectOption('dark');
    await expect
      .poll(() =>
        page.evaluate(
          () =>
            (globalThis as unknown as { document: { documentElement: { dataset: { theme?: string } } } }).document.documentElement.dataset
              .theme,
        ),
      )
      .toBe('dark');
    const text = readFileSync(join(data, 'config.yaml'), 'utf8');
    expect(text).toMatch(/^# my kb/);
    expect(text).toMatch(/top: 12 # passages/);
    expect(text).toMatch(/model: qwen2\.5:7b/);
    expect(text).toMatch(/theme: dark/);
    expect(await page.getByTestId('data-dir').innerText()).toBe(data);
    await page.screenshot({ path: join(ARTIFACTS, 'setup-settings-dark.png') });
  }, 60_000);

  it('folders and status: a collection listed with its counts and forgotten; doctor’s checks and the index size', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/a.md': '# A\n\nalpha\n', 'notes/b.md': '# B\n\nbeta\n' });
    const data = join(dir, 'data');
    expect(kb(['add', join(dir, 'notes'), '--name', 'notes'], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(
      0,
    );
    const { page } = await open(data);
    await nav(page, 'Folders').click();
    const row = page.locator('tr[data-collection="notes"]');
    await expect.poll(() => row.innerText()).toMatch(/notes[\s\S]*2[\s\S]*watched/);
    await nav(page, 'Status').click();
    await expect.poll(() => page.locator('.facts').innerText()).toMatch(/Documents\s+2/);
    expect(await page.locator('.facts').innerText()).toMatch(/On disk\s+[\d.]+ MB in all: index/);
    await expect.poll(() => page.locator('[data-check="database integrity"]').innerText()).toMatch(/ok/);
    await nav(page, 'Folders').click();
    page.once('dialog', (d) => void d.accept());
    await row.getByRole('button', { name: 'Forget' }).click();
    await page.getByText('No folders yet.').waitFor();
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/^0 documents/);
  }, 60_000);

  it('Status finds the files a drop cut short left unread, and Repair reads them', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    const left = join(data, 'uploads', '7777777777777777', 'bittern.md');
    await writeTree(dirname(left), { 'bittern.md': '# Bittern\n\nThe bittern booms in the reed bed.\n' });
    const old = new Date(Date.now() - 5 * 60_000);
    utimesSync(left, old, old);
    const { page, host } = await open(data);
    await nav(page, 'Status').click();
    await expect
      .poll(() => page.locator('[data-check="dropped files"]').innerText())
      .toMatch(/1 file dropped in a browser was never read .*Repair \(Status\) reads them/);
    await page.getByRole('button', { name: 'Repair' }).click();
    await expect.poll(() => page.locator('[data-said="repair"]').innerText()).toMatch(/dropped files: read 1 file/);
    await expect.poll(() => page.locator('[data-check="dropped files"]').innerText()).toMatch(/ok/);
    await page.getByLabel('Search').fill('bittern');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^bittern\.md/);
    await page.close();
    await host.stop();
  }, 60_000);

  it('every hit: copy its citation or a Markdown link, open the line in the editor; the query survives a reload; more than 20 hits come with "Show more"', async () => {
    const dir = await tempDir();
    const files: Record<string, string> = { 'notes/setup.md': '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\n' };
    for (let i = 0; i < 25; i++) files[`notes/n${i}.txt`] = `Note ${i} mentions the walrus once.\n`;
    await writeTree(dir, files);
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'notes')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const { page } = await open(data);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByLabel('Search').fill('install git');
    await page.locator('.hit').first().click();
    const clip = (): Promise<string> =>
      page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      );
    await page.getByRole('button', { name: 'Copy citation' }).click();
    await expect.poll(clip).toBe(`file://${join(dir, 'notes/setup.md')}#L1-L5`);
    await page.getByRole('button', { name: 'Copy as Markdown link' }).click();
    await expect.poll(clip).toBe(`[setup.md · L1–5 § Setup](file://${join(dir, 'notes/setup.md')}#L1-L5)`);
    expect(await page.getByRole('link', { name: 'Open in editor' }).getAttribute('href')).toBe(
      `vscode://file/${join(dir, 'notes/setup.md').slice(1)}:1`,
    );

    await page.getByLabel('Search').fill('walrus');
    await expect.poll(() => page.locator('.hit').count()).toBe(20);
    await page.getByRole('button', { name: 'Show more' }).click();
    await expect.poll(() => page.locator('.hit').count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Show more' }).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('q')).toBe('walrus');
    await page.reload();
    await expect.poll(() => page.getByLabel('Search').inputValue()).toBe('walrus');
    await expect.poll(() => page.locator('.hit').count()).toBe(20);
  }, 60_000);

  it('a PDF can be paged through from the cited page and back, the passage marked only there', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, 'in'));
    writeFileSync(
      join(dir, 'in/guide.pdf'),
      await makePdf({
        pages: ['heron', 'otter', 'badger', 'marten', 'stoat'].map((a, i) => ({
          lines: [`Page ${i + 1} is all about the ${a} and its habits.`],
        })),
      }),
    );
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const { page } = await open(data);
    await page.getByLabel('Search').fill('marten');
    await page.locator('.hit').first().click();
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="4"]').waitFor();
    expect(await page.getByTestId('pdf-page').innerText()).toBe('Page 4 of 5');
    expect(await page.locator('.textLayer .hl-span').count()).toBeGreaterThan(0);
    // The page bar, in its place, never covers the hit's buttons.
    const covered = async (): Promise<boolean> => {
      const bar = (await page.locator('.pdf-nav').boundingBox())!;
      const copy = (await page.getByRole('button', { name: 'Copy citation' }).boundingBox())!;
      return copy.y + copy.height > bar.y && copy.y < bar.y + bar.height;
    };
    await page.locator('.viewer').evaluate((v) => (v.scrollTop = 0));
    expect(await covered()).toBe(false);
    await page.getByRole('button', { name: 'Next page' }).click();
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="5"]').waitFor();
    // The next page is shown from its top, below the page bar, not where the last one was scrolled to.
    const bar = (await page.locator('.pdf-nav').boundingBox())!;
    const next = (await page.locator('.pdf-holder').boundingBox())!;
    expect(next.y).toBeGreaterThanOrEqual(bar.y + bar.height - 1);
    expect(next.y).toBeLessThan(bar.y + bar.height + 40);
    expect(await page.locator('.textLayer').innerText()).toMatch(/stoat/);
    expect(await page.locator('.textLayer .hl-span').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: /Back to the cited page \(4\)/ }).click();
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="4"]').waitFor();
    await expect.poll(() => page.locator('.textLayer .hl-span').count()).toBeGreaterThan(0);
  }, 60_000);

  it('the Library: a row opens its document; Re-index all reads every file again; a scan in a script without OCR data says which language it needs', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'in/setup.md': '# Setup\n\nInstall git with apt-get install git.\n', 'in/other.txt': 'Nothing about tools.\n' });
    if (corpora) copyFileSync(join(corpora, 'pdf/pdfplumber/issue-203-decimalize.pdf'), join(dir, 'in/scan.pdf'));
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const { page } = await open(data);
    await nav(page, 'Library').click();
    await page.locator('.library tr', { hasText: 'setup.md' }).getByRole('button', { name: 'Setup' }).click();
    await expect.poll(() => page.locator('.viewer h2').innerText()).toBe('Setup');
    await expect.poll(() => page.locator('.viewer .line.hl').count()).toBeGreaterThan(0);
    await nav(page, 'Library').click();
    if (corpora) {
      const scan = page.locator('.library tr', { hasText: 'scan.pdf' });
      expect(await scan.locator('.status').innerText()).toBe('waiting');
      expect(await scan.locator('.reason').first().innerText()).toMatch(/need.*OCR language.*tick it under Settings › OCR languages/);
    }
    await page.getByRole('button', { name: 'Re-index all' }).click();
    await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 60_000 });
    expect(await page.locator('.ingest').innerText()).toMatch(new RegExp(`0 added · ${corpora ? 3 : 2} updated`));
  }, 90_000);

  it('the ask drawer keeps its question and answer when closed and opened again; Stop says it stopped', async () => {
    const data = await (async () => {
      const dir = await tempDir();
      await writeTree(dir, { 'in/setup.md': '# Setup\n\nInstall git with apt-get install git on Debian.\n' });
      const d = join(dir, 'data');
      expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: d, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
      return d;
    })();
    ollama.set({ models: ['llama3.2', 'qwen2.5:7b'], chat: { tokens: ['Run apt-get', ' install git [1].'], delayMs: 20 } });
    const { page } = await open(data);
    await nav(page, 'Ask').click();
    await page.getByRole('textbox', { name: /question/i }).fill('how do I install git on debian');
    await page.getByRole('button', { name: 'Ask', exact: true }).last().click();
    await expect.poll(() => page.locator('.ask-answer').innerText()).toMatch(/install git/);
    await nav(page, 'Ask').click();
    expect(await page.locator('.ask-drawer').isVisible()).toBe(false);
    await nav(page, 'Ask').click();
    expect(await page.locator('.ask-answer').innerText()).toMatch(/Run apt-get install git/);
    ollama.set({ models: ['llama3.2'], chat: { tokens: ['Slowly', ' slowly', ' slowly'], firstDelayMs: 5000 } });
    await page.getByRole('textbox', { name: /question/i }).fill('how do I install git on debian please');
    await page.getByRole('button', { name: 'Ask', exact: true }).last().click();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText(/^Stopped/).waitFor();
  }, 60_000);

  it('tags: every tag listed with its count, one picked filters the hits; a tag typed as a word finds what carries it', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'in/a.md': '---\ntags: [travel, work]\n---\n# Trip plan\n\nBook the train early.\n',
      'in/b.md': '---\ntags: [travel]\n---\n# Packing\n\nTake the train charger.\n',
      'in/c.md': '# Commute\n\nThe train is late again.\n',
    });
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const { page } = await open(data);
    await expect
      .poll(() => page.getByLabel('Add a tag').locator('option').allInnerTexts())
      .toEqual(['all tags (2)', '#travel (2)', '#work (1)']);
    await page.getByLabel('Search').fill('train');
    await expect.poll(() => page.locator('.hit').count()).toBe(3);
    await page.getByLabel('Add a tag').selectOption('work');
    expect(await page.getByLabel('Tags').inputValue()).toBe('work');
    await expect.poll(() => page.locator('.hit .title').allInnerTexts()).toEqual([expect.stringMatching(/^Trip plan/)]);
    await page.getByLabel('Tags').fill('');
    await page.getByLabel('Search').fill('work');
    await expect.poll(() => page.locator('.hit .title').allInnerTexts()).toEqual([expect.stringMatching(/^Trip plan/)]);
  }, 60_000);

  it('small things a new user meets: an empty index offers Add files, a typo is corrected (and can be declined), an unfinished FTS5 query says so, Esc closes Ask, Ask at 800 px leaves the viewer room', async () => {
    const dir = await tempDir();
    const data = join(dir, 'data');
    const { page } = await open(data, { ollama: false });
    await page.getByLabel('Search').fill('deployment');
    await expect.poll(() => page.locator('.results .none').innerText()).toMatch(/Nothing is indexed yet/);
    await expect.poll(() => page.locator('.results .none').getByRole('button', { name: 'Add files…' }).count()).toBe(1);
    await writeTree(dir, {
      'in/deploy.md': '# Deployment\n\nThe deployment pipeline supports a rollback to the previous release.\n',
      'in/cook.md': '# Bread\n\nKnead the dough.\n',
    });
    await page.getByLabel('Choose files').setInputFiles([join(dir, 'in/deploy.md'), join(dir, 'in/cook.md')]);
    await page.locator('.ingest[data-state="done"]').waitFor();
    await page.getByLabel('Search').fill('deploymnet rollbak');
    await expect
      .poll(() => page.locator('.corrected').innerText())
      .toMatch(/Showing results for deployment rollback · search for deploymnet rollbak instead/);
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^deploy\.md/);
    await page.screenshot({ path: join(ARTIFACTS, 'setup-typo-corrected.png') });
    await page.locator('.corrected').getByRole('button').click();
    await expect.poll(() => page.locator('.results .none').innerText()).toMatch(/No matches for “deploymnet rollbak”/);
    expect(await page.locator('.corrected').count()).toBe(0);
    // The drop target names every kind kb reads.
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['x'], 'x.txt'));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt }));
    });
    await expect
      .poll(() => page.locator('.drop-target').innerText())
      .toMatch(/PDFs.*audio and video.*Word and OpenDocument.*slides.*spreadsheets.*web pages.*e-books.*mail/s);
    await page.evaluate(() => window.dispatchEvent(new DragEvent('dragleave')));
    await page.getByLabel('Search').fill("'NEAR(deployment");
    await expect.poll(() => page.locator('.notice').innerText()).toMatch(/not finished: close it with '/);
    // Ask: Esc closes the drawer; in a narrow window the viewer keeps its width beside it.
    await page.setViewportSize({ width: 800, height: 700 });
    await page.getByLabel('Search').fill('deployment');
    await page.locator('.hit').first().click();
    await page.locator('header nav').getByRole('button', { name: 'Ask' }).click();
    await expect.poll(() => page.locator('.ask-drawer').isVisible()).toBe(true);
    const viewer = (await page.locator('.viewer').boundingBox())!;
    expect(viewer.width).toBeGreaterThan(380);
    // …and the hits stay in sight above it: Ask never hides what the search found.
    const hits = (await page.locator('.results').boundingBox())!;
    expect(await page.locator('.hit').first().isVisible()).toBe(true);
    expect(hits.height).toBeGreaterThan(120);
    expect(hits.y + hits.height).toBeLessThanOrEqual(viewer.y + 1);
    await page.screenshot({ path: join(ARTIFACTS, 'setup-ask-narrow.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => page.locator('.ask-drawer').isVisible()).toBe(false);
  }, 60_000);

  it.skipIf(!corpora)(
    'Models: import a model from a path on the serving machine (its error beside the form, in view), then remove it',
    async () => {
      const dir = await tempDir();
      // A small window: the import form is far below the top of the page.
      const { page } = await open(join(dir, 'data'), { viewport: { width: 800, height: 700 } });
      await nav(page, 'Models').click();
      await page.getByLabel('Model path').fill(join(dir, 'nowhere'));
      await page.getByLabel('Import as').fill('bge-small-en-v1.5');
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      const said = page.locator('[data-said="import"]');
      await expect.poll(() => said.innerText()).toMatch(/no model folder at .*nowhere/);
      // Next to the form, and on screen without scrolling; nothing at the top of the page.
      const box = (await said.boundingBox())!;
      expect(box.y).toBeGreaterThan(0);
      expect(box.y + box.height).toBeLessThanOrEqual(700);
      const form = (await page.getByLabel('Model path').boundingBox())!;
      expect(box.y - (form.y + form.height)).toBeLessThan(60);
      expect(await page.locator('.page > .error:not(.said)').count()).toBe(0);
      await page.screenshot({ path: join(ARTIFACTS, 'setup-models-import-error.png') });
      // Typing another path clears it: it no longer applies.
      await page.getByLabel('Model path').fill(modelDir);
      expect(await said.count()).toBe(0);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await page.getByText('Imported bge-small-en-v1.5').waitFor({ timeout: 30_000 });
      const row = page.locator('tr[data-model="bge-small-en-v1.5"]');
      await expect.poll(() => row.innerText()).toMatch(/installed/);
      page.once('dialog', (d) => void d.accept());
      await row.getByRole('button', { name: 'Remove' }).click();
      await expect.poll(() => row.innerText()).toMatch(/not installed/);
    },
    60_000,
  );
});
