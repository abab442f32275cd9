// The desktop app for real, through Playwright's _electron: the same flow as the web UI test (add a
// PDF and a Markdown file, search as you type, open the cited page and lines) and the ask panel.
// These run only where the Electron binary is installed; elsewhere they are reported as skipped, with
// the reason printed. (The app's build and main's logic are tested everywhere: see main.test.ts.)
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { _electron as electron, type ElectronApplication } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { electronBinary, electronViteBin } from '../tools/electron-tools.mjs';
import { docx } from '../test/support/format-fixtures.js';
import { makePdf } from '../test/support/make-test-pdf.js';
import { makeTestModel } from '../test/support/make-test-model.js';
import { startOllamaStub } from '../test/support/ollama-stub.js';
import { kb, kbServe, repoRoot, tempDir, writeTree } from '../test/helpers.js';
import { postgresAvailable, startCluster } from '../test/support/postgres.js';
import { openEngine } from '../src/worker/index.js';

const ELECTRON = process.env.ELECTRON_PATH ?? electronBinary(repoRoot);
if (!ELECTRON)
  console.warn(
    'SKIPPED: Electron app tests — no Electron binary installed here (ELECTRON_SKIP_BINARY_DOWNLOAD, or offline); set ELECTRON_PATH to run them',
  );

/** Hands paths to the app as a drop or an opened file does (main's app:ingest event to the window). */
async function ingestInApp(app: ElectronApplication, paths: string[]): Promise<void> {
  await app.evaluate(({ BrowserWindow }, p) => {
    BrowserWindow.getAllWindows()[0]!.webContents.send('kb:message', { type: 'event', event: 'app:ingest', data: { paths: p } });
  }, paths);
}

describe.skipIf(!ELECTRON)('desktop app (Electron)', () => {
  it('adds a PDF and a Markdown file, finds a page as you type, opens the cited page and lines; the ask panel opens from the menu', async () => {
    execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'inherit' });
    const dir = await tempDir();
    await writeTree(dir, { 'setup.md': '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\n' });
    writeFileSync(
      join(dir, 'guide.pdf'),
      await makePdf({
        pages: ['heron', 'otter', 'badger', 'marten'].map((a, i) => ({ lines: [`Page ${i + 1} is all about the ${a} and its habits.`] })),
      }),
    );
    const app = await electron.launch({
      executablePath: ELECTRON!,
      args: [repoRoot, '--no-sandbox'],
      env: { ...process.env, KB_DATA_DIR: join(dir, 'data') },
    });
    try {
      const win = await app.firstWindow();
      await win
        .locator('footer')
        .getByText(/engine ready/)
        .waitFor();
      await ingestInApp(app, [join(dir, 'guide.pdf'), join(dir, 'setup.md')]);
      await win
        .locator('.ingest-summary')
        .getByText(/2 added/)
        .waitFor();
      await win.getByLabel('Search').pressSequentially('marten hab', { delay: 30 });
      await expect.poll(() => win.locator('.hit .label').first().innerText()).toBe('guide.pdf · p. 4');
      await win.locator('.hit').first().click();
      await win.locator('.pdf-holder[data-state="ready"] canvas[data-page="4"]').waitFor();
      expect((await win.locator('.textLayer .hl-span').allInnerTexts()).join(' ')).toMatch(/marten/);
      await win.getByLabel('Search').fill('install git');
      await expect.poll(() => win.locator('.line.hl').count()).toBe(5);
      await win.screenshot({ path: join(repoRoot, 'test-results/electron-main.png') });

      await app.evaluate(({ Menu }) => Menu.getApplicationMenu()?.getMenuItemById('ask')?.click());
      const panel = await app.waitForEvent('window', (p) => p.url().endsWith('#ask'));
      await panel.getByLabel('Question').fill('how do I install git?');
      await panel.keyboard.press('Enter');
      await panel.locator('.ask-sources li').first().waitFor();
      await panel.screenshot({ path: join(repoRoot, 'test-results/electron-ask.png') });
    } finally {
      await app.close();
    }
  }, 120_000);

  it('opens a Word hit rendered at its paragraph, through kb-doc://doc/<id>/view in a sandboxed frame', async () => {
    execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'inherit' });
    const dir = await tempDir();
    writeFileSync(
      join(dir, 'report.docx'),
      await docx([{ text: 'Report', heading: 1 }, { text: 'Opening words.' }, { text: 'The zeppelin hangar lease is the largest risk.' }]),
    );
    const app = await electron.launch({
      executablePath: ELECTRON!,
      args: [repoRoot, '--no-sandbox'],
      env: { ...process.env, KB_DATA_DIR: join(dir, 'data') },
    });
    try {
      const win = await app.firstWindow();
      await win
        .locator('footer')
        .getByText(/engine ready/)
        .waitFor();
      await ingestInApp(app, [join(dir, 'report.docx')]);
      await win
        .locator('.ingest-summary')
        .getByText(/1 added/)
        .waitFor();
      await win.getByLabel('Search').fill('zeppelin');
      await win.locator('.hit').first().click();
      const frame = win.frameLocator('iframe.docview');
      await expect.poll(() => frame.locator('#kb-hit').innerText()).toContain('The zeppelin hangar lease');
      expect(await win.locator('iframe.docview').getAttribute('src')).toMatch(/^kb-doc:\/\/doc\/[0-9a-f]{20}\/view\?at=para%3D/);
      await win.screenshot({ path: join(repoRoot, 'test-results/electron-docx.png') });
    } finally {
      await app.close();
    }
  }, 120_000);

  it('switches search by meaning to a model Ollama serves from the Models view, and reranks once typing pauses', async () => {
    execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'inherit' });
    const dir = await tempDir();
    await writeTree(dir, { 'notes/walrus.md': '# Walruses\n\nThe walrus swims in the Arctic sea and eats clams.\n' });
    const ollama = await startOllamaStub({ models: ['llama3.2:latest', 'nomic-embed-text:latest'] });
    const data = join(dir, 'data');
    const env = { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') };
    expect(
      kb(
        ['models', 'import', makeTestModel({ arch: 'tiny', out: join(dir, 'ce'), crossEncoder: true }), '--as', 'ms-marco-MiniLM-L-6-v2'],
        { env },
      ).code,
    ).toBe(0);
    const app = await electron.launch({
      executablePath: ELECTRON!,
      args: [repoRoot, '--no-sandbox'],
      env: { ...process.env, KB_DATA_DIR: data, KB_OLLAMA_HOST: ollama.url },
    });
    try {
      const win = await app.firstWindow();
      await win
        .locator('footer')
        .getByText(/engine ready/)
        .waitFor();
      await ingestInApp(app, [join(dir, 'notes')]);
      await win
        .locator('.ingest-summary')
        .getByText(/1 added/)
        .waitFor();
      await win.locator('header nav').getByRole('button', { name: 'Models', exact: true }).click();
      await win.getByLabel('Ollama embedding model', { exact: true }).fill('nomic-embed-text');
      await win.getByRole('button', { name: 'Use from Ollama' }).click();
      await expect
        .poll(() => win.locator('.note').innerText(), { timeout: 60_000 })
        .toMatch(/Searching by meaning with ollama:nomic-embed-text/);
      await win.locator('tr[data-model="ms-marco-MiniLM-L-6-v2"]').getByRole('button', { name: 'Use' }).click();
      await expect.poll(() => win.locator('.note').innerText()).toMatch(/reranked by ms-marco-MiniLM-L-6-v2/);
      await win.locator('header nav').getByRole('button', { name: 'Search', exact: true }).click();
      await win.getByText('Explain ranking').click();
      await win.getByLabel('Search').pressSequentially('walrus arctic', { delay: 30 });
      await expect.poll(() => win.locator('.hit').first().locator('.explain').innerText()).toMatch(/meaning\s+#1[\s\S]*reranked/);
      await win.screenshot({ path: join(repoRoot, 'test-results/electron-models.png') });
    } finally {
      await app.close();
      await ollama.close();
    }
  }, 120_000);

  it('sets up without a terminal: a folder chosen in the system dialog is kept in sync, a hit opens in its app and its folder, Settings shows the data folder and turns updates off', async () => {
    execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'inherit' });
    const dir = await tempDir();
    await writeTree(dir, { 'notes/setup.md': '# Setup\n\nInstall git with apt-get install git.\n' });
    const app = await electron.launch({
      executablePath: ELECTRON!,
      args: [repoRoot, '--no-sandbox'],
      env: { ...process.env, KB_DATA_DIR: join(dir, 'data') },
    });
    try {
      // The dialog and the shell answer as a user would, and say what they were asked.
      await app.evaluate(
        ({ dialog, shell }, folder) => {
          const g = globalThis as unknown as { asked: string[] };
          g.asked = [];
          dialog.showOpenDialog = (async () => ({ canceled: false, filePaths: [folder] })) as unknown as typeof dialog.showOpenDialog;
          shell.openPath = async (p: string) => (g.asked.push(`open ${p}`), '');
          shell.showItemInFolder = (p: string) => void g.asked.push(`reveal ${p}`);
        },
        join(dir, 'notes'),
      );
      const win = await app.firstWindow();
      await win
        .locator('footer')
        .getByText(/engine ready/)
        .waitFor();
      await win.locator('[data-step="folder"]').getByRole('button', { name: 'Choose a folder…' }).click();
      await win.getByText(/Added notes: 1 document, kept in sync/).waitFor();
      await win.getByLabel('Search').fill('install git');
      await win.locator('.hit').first().click();
      await win.getByRole('button', { name: 'Open in its app' }).click();
      await win.getByRole('button', { name: 'Show in folder' }).click();
      await win.locator('header nav').getByRole('button', { name: 'Settings', exact: true }).click();
      await win.getByRole('button', { name: 'Show in folder' }).click();
      // The app's own setting: updates, on unless turned off (written to config.yaml as ui.updates).
      const updates = win.getByLabel('Look for updates');
      await expect.poll(() => updates.isChecked()).toBe(true);
      await updates.uncheck();
      await expect.poll(() => readFileSync(join(dir, 'data', 'config.yaml'), 'utf8')).toMatch(/updates: false/);
      const asked = await app.evaluate(() => (globalThis as unknown as { asked: string[] }).asked);
      expect(asked).toEqual([
        `open ${join(dir, 'notes/setup.md')}`,
        `reveal ${join(dir, 'notes/setup.md')}`,
        `reveal ${join(dir, 'data')}`,
      ]);
    } finally {
      await app.close();
    }
  }, 120_000);

  it.skipIf(!postgresAvailable())(
    "connects to a team server in Settings: a hit from the app's own index and one from the server side by side, the server's opened at its lines",
    async () => {
      execFileSync(process.execPath, [electronViteBin(repoRoot), 'build'], { cwd: repoRoot, stdio: 'inherit' });
      const dir = await tempDir();
      await writeTree(dir, {
        'team/plan.md': '# Plan\n\nShip the heron release on Friday.\n',
        'mine/heron-watch.md': '# Heron watch\n\nA grey heron at the canal.\n',
      });
      const cluster = await startCluster();
      try {
        const url = await cluster.database();
        const admin = await openEngine({ dataDir: join(dir, 'server-data'), config: { store: { url } } });
        await admin.addCollection(join(dir, 'team'), { name: 'team' });
        const { token } = await admin.accounts.addUser('bob', 'reader');
        await admin.accounts.grant('team', 'bob');
        admin.close();
        const team = await kbServe(join(dir, 'server-data'), 0, { KB_STORE: url });
        const app = await electron.launch({
          executablePath: ELECTRON!,
          args: [repoRoot, '--no-sandbox'],
          env: { ...process.env, KB_DATA_DIR: join(dir, 'data') },
        });
        try {
          const win = await app.firstWindow();
          await win
            .locator('footer')
            .getByText(/engine ready/)
            .waitFor();
          await ingestInApp(app, [join(dir, 'mine')]);
          await win
            .locator('.ingest-summary')
            .getByText(/1 added/)
            .waitFor();
          await win.locator('header nav').getByRole('button', { name: 'Settings', exact: true }).click();
          const form = win.getByTestId('team-server');
          await form.getByLabel('Server address').fill(`http://127.0.0.1:${team.port}`);
          await form.getByLabel('Your token').fill(token);
          await form.getByRole('button', { name: 'Connect' }).click();
          await expect.poll(() => form.locator('[data-connected="true"]').innerText()).toMatch(/as bob \(reader\)/);
          await win.locator('header nav').getByRole('button', { name: 'Search', exact: true }).click();
          await win.getByLabel('Search').fill('heron');
          await expect.poll(() => win.locator('.hit').count()).toBe(2);
          await win.locator('.hit', { has: win.locator('.from') }).click();
          await expect.poll(async () => (await win.locator('.line.hl').allInnerTexts()).join(' ')).toMatch(/heron release on Friday/);
          await win.screenshot({ path: join(repoRoot, 'test-results/electron-team.png') });
        } finally {
          await app.close();
          await team.stop();
        }
      } finally {
        cluster.stop();
      }
    },
    120_000,
  );
});
