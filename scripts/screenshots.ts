// Screenshots for docs/ and the README: kb's own UI in Chromium against kb serve, over a small demo
// library (this repository's docs and contracts, a real paper from ../shared/corpora, a scan).
// Run: npx tsx scripts/screenshots.ts   (needs Chromium; set CHROMIUM_PATH if it is not /usr/bin/chromium)
import { servedFrom } from '../tools/serve-output.js';
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';

const root = resolve(import.meta.dirname, '..');
const corpora = resolve(root, '../shared/corpora');
const data = mkdtempSync(join(tmpdir(), 'kb-shots-'));
const kb = (args: string[]): Promise<void> =>
  new Promise((res, rej) =>
    spawn(process.execPath, [join(root, 'bin/kb.js'), ...args, '--data-dir', data], { stdio: 'inherit' }).on('exit', (c) =>
      c === 0 ? res() : rej(new Error(`kb ${args[0]} exited ${c}`)),
    ),
  );

await kb([
  'ingest',
  join(root, 'docs/architecture.md'),
  join(root, 'README.md'),
  join(root, 'src/shared'),
  join(corpora, 'pdf/pdfplumber/issue-982-example.pdf'),
  join(corpora, 'images/tesseract.js/testocr.png'),
]);
const serve = spawn(process.execPath, [join(root, 'bin/kb.js'), 'serve', '--json', '--data-dir', data], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const { url } = servedFrom(
  await new Promise<string>((res) => {
    let s = '';
    serve.stdout.on('data', (d: Buffer) => (s += d.toString()).includes('\n}') && res(s));
  }),
);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(url);
  const search = page.getByLabel('Search');
  await search.pressSequentially('citation label', { delay: 20 });
  await page.locator('.hit').nth(2).waitFor();
  const code = page.locator('.hit', { hasText: 'citation.ts' }).first();
  if (await code.count()) await code.click();
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(root, 'docs/app-main.png') });

  await search.fill('starry night photograph');
  await page.locator('.hit').first().click();
  await page.locator('.pdf-holder[data-state="ready"]').waitFor();
  await page.screenshot({ path: join(root, 'docs/app-pdf-page.png') });

  await search.fill('page citation');
  await page.getByRole('button', { name: 'Ask' }).click();
  await page.getByLabel('Question').fill('How does kb cite a page of a PDF?');
  await page.getByLabel('Question').press('Enter');
  await page.locator('.ask-sources li').nth(1).waitFor();
  await page.locator('.ask-sources li button').first().click();
  await page.waitForTimeout(600);
  await page.screenshot({ path: join(root, 'docs/app-ask.png') });
  console.log('wrote docs/app-main.png, docs/app-pdf-page.png, docs/app-ask.png');
} finally {
  await browser.close();
  serve.kill();
}
