// The Library of a big index in the browser (kb serve): the first page opens at once, the next ones
// come as the list scrolls, and the engine filters and sorts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, kbServe, tempDir } from '../test/helpers.js';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';

if (!hasChromium) console.warn(`Library UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

let browser: Browser;
beforeAll(async () => {
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe.skipIf(!hasChromium)('the Library of a big index (kb serve)', () => {
  it('shows the first page, brings the next as it scrolls, and asks the engine to filter and sort', async () => {
    const dir = await tempDir('kb-library-ui-');
    const docs = join(dir, 'docs');
    mkdirSync(docs);
    for (let i = 0; i < 260; i++)
      writeFileSync(join(docs, `note-${i}.md`), `# Note ${String(i).padStart(3, '0')}\n\n${'otter '.repeat(i + 1)}\n`);
    writeFileSync(join(docs, 'broken.pdf'), '%PDF-1.7 not really');
    const data = join(dir, 'data');
    kb(['ingest', docs, '--data-dir', data]);
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1300, height: 850 } });
    try {
      await page.goto(host.url);
      await page.getByRole('button', { name: 'Library', exact: true }).click();
      const rows = page.locator('.library tbody tr[data-doc]');
      const list = page.locator('section.library');
      const toBottom = (): Promise<void> => list.evaluate((el) => void (el.scrollTop = el.scrollHeight));
      await expect.poll(() => page.getByText(/Showing 100 of 261…/).count()).toBe(1);
      await expect(page.locator('.library-head').innerText()).resolves.toMatch(/261 documents\s+1 failed/);
      // Only the rows in view (and a few around them) are drawn, however many are loaded.
      const drawn = await rows.count();
      expect(drawn).toBeGreaterThan(10);
      expect(drawn).toBeLessThan(60);
      await toBottom();
      await expect.poll(() => page.getByText(/Showing 200 of 261…/).count()).toBe(1);
      await toBottom();
      await expect.poll(() => page.getByText(/Showing \d+ of/).count()).toBe(0);
      await toBottom();
      // The last of the 261 is drawn at the bottom, and still not all of them are.
      await expect.poll(() => rows.last().getAttribute('aria-rowindex')).toBe('262');
      expect(await rows.count()).toBeLessThan(60);
      await page.screenshot({ path: join(dir, 'library-bottom.png') });
      // Filtered by the engine: a path's part.
      await page.getByLabel('Filter documents').fill('note-25');
      await expect.poll(() => rows.count()).toBe(11);
      await expect(rows.first().innerText()).resolves.toMatch(/Note 025/);
      await page.getByLabel('Filter documents').fill('');
      // Sorted by the engine: the failed one first by status, the biggest first by size.
      await page.locator('.library th button', { hasText: 'Status' }).click();
      await expect.poll(() => rows.first().getAttribute('data-status')).toBe('failed');
      await page.locator('.library th button', { hasText: 'Size' }).click();
      await page.locator('.library th button', { hasText: 'Size' }).click();
      await expect.poll(() => rows.first().innerText()).toMatch(/Note 259/);
      await page.getByRole('button', { name: '1 failed' }).click();
      await expect.poll(() => rows.count()).toBe(1);
      // Add files… is there whenever the index has files: a browser has no other way than a drop.
      await page.getByRole('button', { name: '1 failed' }).click();
      await page.locator('.library-head input[type=file]').setInputFiles({
        name: 'walrus.md',
        mimeType: 'text/markdown',
        buffer: Buffer.from('# Walrus\n\nThe walrus hauls out on the ice.\n'),
      });
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 30_000 });
      await expect.poll(() => page.locator('.library-head').innerText()).toMatch(/262 documents/);
    } finally {
      await page.close();
      await host.stop();
    }
  }, 120_000);
});
