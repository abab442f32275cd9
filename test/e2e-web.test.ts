// The web UI for real: Debian's Chromium (Playwright) against `kb serve` and a real engine.
// Skipped, saying so, where there is no Chromium (set CHROMIUM_PATH to point at one).
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../scripts/make-test-pdf.js';
import { kb, kbServe, repoRoot, tempDir, writeTree } from './helpers.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`web UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const ARTIFACTS = join(repoRoot, 'test-results');

let browser: Browser;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!hasChromium)('web UI (kb serve)', () => {
  it('searches as you type, cites the page of a PDF hit, and moves through hits from the keyboard', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/setup.md': '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\n' });
    writeFileSync(
      join(dir, 'notes/guide.pdf'),
      await makePdf({
        pages: ['heron', 'otter', 'badger', 'marten', 'stoat'].map((a, i) => ({ lines: [`Page ${i + 1} is all about the ${a} and its habits.`] })),
      }),
    );
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'notes')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/2 documents · engine ready/);

    await page.getByLabel('Search').pressSequentially('marten hab', { delay: 30 });
    const first = page.locator('.hit').first();
    await first.waitFor();
    expect(await first.locator('.label').innerText()).toBe('guide.pdf · p. 4');
    expect(await first.locator('mark').first().innerText()).toMatch(/marten/i);
    // The viewer shows that page, rendered, with the passage marked on it.
    await first.click();
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="4"]').waitFor();
    const marked = await page.locator('.textLayer .hl-span').allInnerTexts();
    expect(marked.join(' ')).toMatch(/marten/);
    expect(marked.join(' ')).not.toMatch(/badger|stoat/);
    await page.screenshot({ path: join(ARTIFACTS, 'web-pdf-page.png') });

    await page.getByLabel('Search').fill('install git');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^setup.md · L1–5 § Setup/);
    await page.keyboard.press('Control+k');
    expect(await page.getByLabel('Search').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    // The viewer opens the Markdown file at the cited lines, highlighted.
    await expect.poll(() => page.locator('.line.hl').count()).toBe(5);
    expect(await page.locator('.line.hl').last().innerText()).toMatch(/Install git with apt-get install git\./);
    await page.screenshot({ path: join(ARTIFACTS, 'web-markdown-lines.png') });
    await page.keyboard.press('ArrowDown');
    expect(errors).toEqual([]);
    await page.close();
  });
});
