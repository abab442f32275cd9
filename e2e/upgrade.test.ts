// An index an older kb wrote, opened by the app (kb serve): the footer says how far the upgrade is,
// searches answer meanwhile, and the footer says when it is done.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kbServe, tempDir } from '../test/helpers.js';
import { schema10At } from '../test/support/old-index.js';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';

if (!hasChromium) console.warn(`upgrade UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** Chunks enough for the upgrade to run in the background (an index of 20,000 or fewer is upgraded as it opens). */
const ROWS = 60_000;

let browser: Browser;
beforeAll(async () => {
  if (hasChromium) browser = await launchChromium();
});
afterAll(async () => browser?.close());

describe.skipIf(!hasChromium)('an index upgrade in the app (kb serve)', () => {
  it('says in the footer how far it is, answers searches meanwhile, and says when it is done', async () => {
    const dir = await tempDir('kb-upgrade-ui-');
    const data = join(dir, 'data');
    mkdirSync(data);
    schema10At(join(data, 'kb.sqlite'), (i) => `plain note number ${i} about rivers, their deltas and the sea`, ROWS);
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1300, height: 850 } });
    try {
      await page.goto(host.url);
      const footer = page.locator('footer');
      await page.locator('footer [data-background=upgrading]').waitFor({ timeout: 60_000 });
      expect(await footer.innerText()).toMatch(/upgrading the index, \d+%/);
      await page.getByLabel('Search').fill('deltas');
      await expect.poll(() => page.locator('.hit').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      await expect.poll(() => footer.innerText(), { timeout: 300_000, interval: 500 }).toMatch(/index upgraded/);
      await page.screenshot({ path: join(dir, 'upgraded.png') });
    } finally {
      await page.close();
      await host.stop();
    }
  }, 400_000);
});
