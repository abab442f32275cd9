// Word, web pages, e-books, tables and slides in the app (Chromium through kb serve): a hit opens its
// document rendered in a sandboxed frame, scrolled to the cited paragraphs, text fragment, chapter,
// rows or slide, which are marked; a hostile page's script, handler and remote picture do nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEW_KEYS_HASH, VIEW_KEYS_SCRIPT } from '../src/shared/view-keys.js';
import * as F from '../test/support/format-fixtures.js';
import { kb, kbServe, repoRoot, tempDir } from '../test/helpers.js';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';

if (!hasChromium) console.warn(`format UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const ARTIFACTS = join(repoRoot, 'test-results');

let browser: Browser;
beforeAll(async () => {
  if (hasChromium) browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
});
afterAll(async () => browser?.close());

async function library(): Promise<{ page: Page; requests: string[]; messages: () => Promise<string[]> }> {
  const dir = await tempDir('kb-fmt-ui-');
  const docs = join(dir, 'docs');
  mkdirSync(docs);
  const paras: F.Para[] = [{ text: 'Annual Report', heading: 1 }];
  for (let i = 0; i < 40; i++) paras.push({ text: F.filler(4, i + 1) });
  paras.push({ text: 'Risks', heading: 2 }, { text: 'The zeppelin hangar lease is the largest open risk.' });
  for (let i = 0; i < 30; i++) paras.push({ text: F.filler(4, i + 60) });
  writeFileSync(join(docs, 'report.docx'), await F.docx(paras, { title: 'Annual Report' }));
  const sections = [
    { heading: 'History', paras: Array.from({ length: 30 }, (_, i) => F.filler(5, i + 1)) },
    { heading: 'Later', paras: ['Babbage designed the analytical engine in 1837.', F.filler(5, 99)] },
  ];
  writeFileSync(join(docs, 'engines.html'), F.html({ title: 'Engines', sections, hostile: true }));
  writeFileSync(
    join(docs, 'book.epub'),
    await F.epub(
      [
        { title: 'Beginnings', paras: [F.filler(10, 1)] },
        { title: 'The Storm', paras: [F.filler(10, 2), 'The lighthouse keeper lit the lamp.'] },
        { title: 'Calm', paras: [F.filler(4, 3)] },
      ],
      { title: 'Sea Tales' },
    ),
  );
  const rows = [
    ['Date', 'Item', 'Amount'],
    ...Array.from({ length: 400 }, (_, i) => [`2024-02-${(i % 28) + 1}`, i === 250 ? 'Quokka food' : `Item ${i}`, String(i)]),
  ];
  writeFileSync(join(docs, 'budget.csv'), rows.map((r) => r.join(',')).join('\n'));
  writeFileSync(
    join(docs, 'deck.pptx'),
    await F.pptx([
      { title: 'Welcome', body: ['Agenda'] },
      { title: 'Results', body: ['Revenue grew'], notes: 'Mention the albatross incident.' },
    ]),
  );
  const data = join(dir, 'data');
  const r = kb(['ingest', docs, '--data-dir', data]);
  expect(r.code, r.stderr).toBe(0);
  const host = await kbServe(data);
  const page = await browser.newPage({ viewport: { width: 1300, height: 850 } });
  const requests: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  await page.goto(host.url);
  // Anything the rendered page might post to its parent would land here.
  await page.evaluate(() => {
    const w = window as unknown as { kbMessages: string[] };
    w.kbMessages = [];
    window.addEventListener('message', (e) => w.kbMessages.push(String(e.data)));
  });
  await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
  return { page, requests, messages: () => page.evaluate(() => (window as unknown as { kbMessages: string[] }).kbMessages) };
}

/** Searches, opens the first hit, and gives the viewer's frame once its marked passage is there. */
async function open(page: Page, query: string): Promise<Frame> {
  await page.locator('input[type=search]').first().fill(query);
  await page.locator('.results li').first().click();
  const el = page.locator('iframe.docview');
  await el.waitFor();
  await expect.poll(async () => (await el.elementHandle())?.contentFrame().then((f) => f?.locator('#kb-hit').count())).toBe(1);
  return (await (await el.elementHandle())!.contentFrame())!;
}

/** The marked passage is inside the frame's visible area (the frame scrolled to it). */
async function inView(page: Page, frame: Frame): Promise<boolean> {
  const box = await page.locator('iframe.docview').boundingBox();
  const hit = await frame.locator('#kb-hit').boundingBox();
  return !!box && !!hit && hit.y >= box.y - 2 && hit.y < box.y + box.height - 10;
}

describe.skipIf(!hasChromium)('structured documents in the viewer (kb serve)', () => {
  it('opens a Word hit at its paragraphs, a page at its text fragment, a book at its chapter, a table at its rows, a deck at its slide', async () => {
    const { page, requests, messages } = await library();

    const docx = await open(page, 'zeppelin hangar');
    expect(await page.locator('.viewer .label').first().innerText()).toMatch(/report\.docx · ¶ \d+/);
    expect(await docx.locator('#kb-hit').innerText()).toContain('The zeppelin hangar lease is the largest open risk.');
    expect(await docx.locator('#kb-hit mark').allInnerTexts()).toEqual(['zeppelin', 'hangar']);
    await expect.poll(() => inView(page, docx)).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'format-docx.png') });

    const html = await open(page, 'babbage');
    expect(await page.locator('iframe.docview').getAttribute('src')).toMatch(/view\?at=%3A~%3Atext%3D.*#kb-hit$/);
    expect(await html.locator('#kb-hit').innerText()).toContain('Babbage designed the analytical engine in 1837.');
    await expect.poll(() => inView(page, html)).toBe(true);
    // Readability dropped the navigation and footer; the page's script and handlers never ran.
    expect(await html.locator('body').innerText()).not.toMatch(/Shop the sale|newsletter/);
    await page.screenshot({ path: join(ARTIFACTS, 'format-html.png') });

    const book = await open(page, 'lighthouse keeper');
    expect(await book.locator('nav [aria-current=page]').innerText()).toBe('The Storm');
    expect(await book.locator('#kb-hit').innerText()).toContain('The lighthouse keeper lit the lamp.');
    expect(await book.locator('body').innerText()).not.toContain(F.filler(10, 1).slice(0, 60)); // chapter 1 is not shown
    // The table of contents moves to another chapter inside the frame.
    await book.locator('nav a', { hasText: 'Calm' }).click();
    await expect
      .poll(() =>
        book
          .locator('nav [aria-current=page]')
          .innerText()
          .catch(() => ''),
      )
      .toBe('Calm');
    await page.screenshot({ path: join(ARTIFACTS, 'format-epub.png') });

    const table = await open(page, 'quokka');
    const marked = table.locator('tr.hit');
    expect(await marked.count()).toBeGreaterThan(1);
    expect(await table.locator('tr.hit', { hasText: 'Quokka food' }).count()).toBe(1);
    expect(await table.locator('tr.hit td.n').first().innerText()).toBe(
      /#row=(\d+)/.exec(await page.locator('.viewer .uri').innerText())?.[1],
    );
    await expect.poll(() => inView(page, table), { timeout: 10_000 }).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'format-csv.png') });

    const deck = await open(page, 'albatross');
    expect(await deck.locator('#kb-hit .slide-n').innerText()).toBe('Slide 2');

    expect(await messages()).toEqual([]);
    expect(requests.filter((u) => u.includes('127.0.0.1:9/'))).toEqual([]);
  }, 90_000);

  it('gives the keyboard back after a click in a rendered document: Ctrl-K to the search, ↑/↓ through the hits, Esc out', async () => {
    const { page } = await library();
    const docx = await open(page, 'zeppelin hangar');
    await docx.locator('#kb-hit').click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('IFRAME');
    await page.keyboard.press('Control+k');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search');
    // Ctrl-K selects what the box holds, as it does from anywhere: typing replaces it.
    await page.keyboard.type('babbage');
    await expect.poll(() => page.locator('input[type=search]').first().inputValue()).toBe('babbage');
    // Esc from the frame goes back to the search box too; ↑/↓ then move through the hits.
    const html = await open(page, 'the');
    await html.locator('#kb-hit').click();
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('IFRAME');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search');
    const active = (): Promise<number> =>
      page.locator('.results li.hit').evaluateAll((lis) => lis.findIndex((li) => li.classList.contains('active')));
    const at = await active();
    await page.keyboard.press('ArrowDown');
    await expect.poll(active).toBe(at + 1);
    await page.screenshot({ path: join(ARTIFACTS, 'format-keys.png') });
  }, 60_000);

  it('says it is opening a document while the engine renders it, instead of an empty frame', async () => {
    const { page } = await library();
    // The rendition held back, as a big Word file's first open is.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await page.route(/\/view\?at=/, async (route) => {
      await held;
      await route.continue();
    });
    await page.locator('input[type=search]').first().fill('zeppelin hangar');
    await page.locator('.results li').first().click();
    await expect.poll(() => page.locator('.docview-loading').innerText()).toMatch(/^Opening .* at the cited passage…$/);
    expect(await page.locator('.docview-holder').getAttribute('data-state')).toBe('loading');
    release();
    await expect.poll(() => page.locator('.docview-holder').getAttribute('data-state')).toBe('ready');
    expect(await page.locator('.docview-loading').count()).toBe(0);
  });

  it('serves the rendition under a CSP that runs no script but its own key forwarder, and loads nothing remote', async () => {
    const { page } = await library();
    await open(page, 'babbage');
    const src = await page.locator('iframe.docview').getAttribute('src');
    const res = await page.request.get(new URL(src!, page.url()).toString());
    expect(res.headers()['content-security-policy']).toBe(
      `sandbox allow-scripts; default-src 'none'; script-src ${VIEW_KEYS_HASH}; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'`,
    );
    const body = await res.text();
    // The page's own script and handlers were dropped; the one script is kb's, which the CSP names by its hash.
    expect(body.split('<script').length - 1).toBe(1);
    expect(body).toContain(`<script>${VIEW_KEYS_SCRIPT}</script>`);
    for (const bad of ['onerror', '127.0.0.1:9']) expect(body).not.toContain(bad);
    expect(await page.locator('iframe.docview').getAttribute('sandbox')).toBe('allow-scripts');

    // A book's chapter links carry a key for that document's rendition, which the sandboxed frame needs
    // (no cookie goes with its links); the key opens nothing else and never becomes the session cookie.
    const book = await open(page, 'lighthouse keeper');
    const href = await book.locator('nav a').first().getAttribute('href');
    const link = new URL(href!, book.url());
    const bare = await fetch(link);
    expect(bare.status).toBe(200);
    expect(bare.headers.get('set-cookie')).toBeNull();
    const otherId = new URL(src!, page.url()).pathname.split('/')[2]!;
    expect((await fetch(new URL(`/doc/${otherId}/view?k=${link.searchParams.get('k')}`, link))).status).toBe(401);
    expect((await fetch(new URL(`/doc/${link.pathname.split('/')[2]}?k=${link.searchParams.get('k')}`, link))).status).toBe(401);
  }, 60_000);
});
