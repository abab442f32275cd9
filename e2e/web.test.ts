// The web UI for real: Debian's Chromium (Playwright) against `kb serve` and a real engine.
// Skipped, saying so, where there is no Chromium (set CHROMIUM_PATH to point at one).
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, hasChromium, launchChromium } from './chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '../test/support/make-test-pdf.js';
import { startOllamaStub } from '../test/support/ollama-stub.js';
import { corporaDir, kb, kbServe, repoRoot, tempDir, writeTree } from '../test/helpers.js';

if (!hasChromium) console.warn(`web UI tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
const ARTIFACTS = join(repoRoot, 'test-results');

let browser: Browser;
beforeAll(async () => {
  if (!hasChromium) return;
  browser = await launchChromium();
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
        pages: ['heron', 'otter', 'badger', 'marten', 'stoat'].map((a, i) => ({
          lines: [`Page ${i + 1} is all about the ${a} and its habits.`],
        })),
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

  it('shows after the last keystroke what the finished query finds, and never passes the hits of an earlier search off as its own', async () => {
    const dir = await tempDir();
    const notes: Record<string, string> = { 'notes/both.md': '# Both\n\nNewts live where the turbidity is low.\n' };
    for (let i = 0; i < 6; i++) notes[`notes/t${i}.md`] = `# Sample ${i}\n\nThe turbidity of sample ${i} rose after rain.\n`;
    for (let i = 0; i < 2; i++) notes[`notes/n${i}.md`] = `# Pond ${i}\n\nNewts breed in pond ${i}.\n`;
    await writeTree(dir, notes);
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'notes')], { env }).code).toBe(0);
    const finished = (kb(['search', 'newts turbidity', '--json'], { env }).json() as { returned: number }).returned;
    expect(finished).toBe(9);
    const host = await kbServe(join(dir, 'data'));
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
    // Typed as a person types, no space after the last word.
    await page.getByLabel('Search').pressSequentially('newts turbidity', { delay: 30 });
    await expect.poll(() => page.locator('.results').getAttribute('data-query')).toBe('newts turbidity');
    await expect.poll(() => page.locator('.hit').count()).toBe(finished);
    expect(await page.locator('.results ol.stale').count()).toBe(0);
    // A query that fails (an FTS5 expression with a syntax error): the error, and the hits below said to be an earlier search's.
    await page.getByLabel('Search').fill("'turbidity AND'");
    await expect.poll(() => page.locator('.results .error').innerText()).toMatch(/not valid FTS5 \(it ends where a word should follow\)/);
    // The earlier keystroke's own notes ("not finished…") are not shown under this search's error.
    expect(await page.locator('.results .notice').count()).toBe(0);
    expect(await page.locator('.stale-note').innerText()).toBe('Below: the results for “newts turbidity”, an earlier search.');
    expect(await page.locator('.results ol.stale').count()).toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'web-stale-hits.png') });
    await page.getByLabel('Search').fill('newts');
    await expect.poll(() => page.locator('.results ol.stale').count()).toBe(0);
    expect(await page.locator('.stale-note').count()).toBe(0);
    await page.close();
  });

  it('opens a hit in a one-line file of megabytes at its passage, marked, without drawing the whole line', async () => {
    const dir = await tempDir();
    const words = ['river', 'sample', 'meadow', 'water', 'flow', 'stone', 'bank', 'reed', 'heron', 'mill'];
    const line = Array.from({ length: 500_000 }, (_, i) => (i === 420_000 ? 'kingfisher' : words[(i * 7 + (i >> 4)) % words.length])).join(
      ' ',
    );
    await writeTree(dir, { 'dump/one-line.txt': line });
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'dump')], { env }).code).toBe(0);
    const host = await kbServe(join(dir, 'data'));
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
    await page.getByLabel('Search').fill('kingfisher');
    await page.locator('.hit').first().click();
    await page.locator('.lines mark.passage').waitFor();
    expect(await page.locator('.lines mark.passage').innerText()).toContain('kingfisher');
    // The line is shown around the passage: a few thousand characters, not three megabytes.
    expect(await page.locator('.lines').evaluate((el) => el.textContent?.length ?? 0)).toBeLessThan(10_000);
    await page.screenshot({ path: join(ARTIFACTS, 'web-one-line.png') });
    await page.close();
  });

  it.skipIf(!corporaDir())(
    'drop a real PDF and a Markdown file, see progress finish, find page N as you type, open it highlighted',
    async () => {
      const dir = await tempDir();
      // The ask panel's model: a stub Ollama that answers with a citation of source [1].
      const ollama = await startOllamaStub({ chat: { tokens: ['Install git', ' with apt-get install git', ' [1].'], delayMs: 30 } });
      process.env.KB_OLLAMA_HOST = ollama.url;
      const host = await kbServe(join(dir, 'data')).finally(() => delete process.env.KB_OLLAMA_HOST);
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(host.url);
      await page.getByText('Nothing indexed yet').waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'web-empty.png') });

      // 1. Drop a real 8-page PDF and a Markdown file onto the window.
      const pdf = readFileSync(join(corporaDir()!, 'pdf/pdfplumber/issue-982-example.pdf'));
      const md = '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\n\n## Windows\n\nUse the installer from the website.\n';
      await drop(
        page,
        [
          { name: 'issue-982-example.pdf', type: 'application/pdf', bytes: pdf },
          { name: 'setup.md', type: 'text/markdown', bytes: Buffer.from(md) },
        ],
        join(ARTIFACTS, 'web-drop-target.png'),
      );
      // 2. Progress shows, then finishes with a summary.
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 60_000 });
      expect(await page.locator('.ingest-summary').innerText()).toMatch(/2 added/);
      await expect.poll(() => page.locator('footer').innerText()).toMatch(/2 documents/);

      // 3. A phrase that occurs only on page 3: its hit is listed before the typing is done.
      await page.getByLabel('Search').pressSequentially('starry nig', { delay: 40 });
      await expect
        .poll(() => page.locator('.hit .label').first().innerText(), { timeout: 3000 })
        .toMatch(/^issue-982-example\.pdf · p\. 3\b/);
      await page.getByLabel('Search').pressSequentially('ht photograph', { delay: 40 });
      // 4. Click: the viewer renders page 3 and highlights the passage on it.
      await page.locator('.hit').first().click();
      await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="3"]').waitFor();
      const marked = (await page.locator('.textLayer .hl-span').allInnerTexts()).join(' ');
      expect(marked).toMatch(/Starry/);
      await page.screenshot({ path: join(ARTIFACTS, 'web-pdf-cited-page.png') });

      // 5. A Markdown hit opens at its lines, highlighted.
      await page.getByLabel('Search').fill('installer website');
      await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^setup\.md · L\d+–\d+ § Setup/);
      const [, from, to] = /L(\d+)–(\d+)/.exec(await page.locator('.hit .label').first().innerText())!.map(Number);
      await expect.poll(() => page.locator('.line.hl').count()).toBe(to! - from! + 1);
      expect(await page.locator('.line.hl').first().getAttribute('data-line')).toBe(String(from));
      expect(await page.locator('.line.hl').allInnerTexts()).toContainEqual(expect.stringMatching(/Use the installer from the website\./));
      await page.screenshot({ path: join(ARTIFACTS, 'web-main.png') });

      // The ranking explained on demand.
      await page.getByLabel('Explain ranking').check();
      await expect.poll(() => page.locator('.hit .explain').first().innerText()).toMatch(/words[\s\S]*#1/);

      // The ask panel: the answer streams in with its [1] citation, which opens the cited lines.
      await page.getByRole('button', { name: 'Ask' }).click();
      await page.getByLabel('Question').fill('How do I install git on Linux?');
      await page.getByLabel('Question').press('Enter');
      await page.locator('.ask-answer button.cite').waitFor();
      expect(await page.locator('.ask-answer').innerText()).toMatch(/^Install git with apt-get install git \[1\]\.$/);
      expect(await page.locator('.ask-sources li').first().innerText()).toMatch(/\[1\] setup\.md · L\d+–\d+ § Setup/);
      await page.screenshot({ path: join(ARTIFACTS, 'web-ask.png') });
      await page.getByLabel('Search').fill('');
      await page.locator('.ask-answer button.cite').click();
      await expect.poll(() => page.locator('.line.hl').allInnerTexts()).toContainEqual(expect.stringMatching(/apt-get install git/));
      await ollama.close();

      // The library lists both, and removes one (its hits go with it).
      await page.getByRole('button', { name: 'Library' }).click();
      await expect.poll(() => page.locator('.library tbody tr').count()).toBe(2);
      page.once('dialog', (d) => void d.accept());
      await page.locator('.library tr', { hasText: 'setup.md' }).getByRole('button', { name: 'Remove' }).click();
      await expect.poll(() => page.locator('.library tbody tr').count()).toBe(1);
      expect(errors).toEqual([]);
      await page.close();
    },
    120_000,
  );

  it('highlights a passage of a three-column page in its own column only, though the producer emitted lines across the columns', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, 'docs'));
    const fixture = join(repoRoot, 'fixtures', 'pdf-layout');
    writeFileSync(join(dir, 'docs', 'gazette.pdf'), readFileSync(join(fixture, 'interleaved.pdf')));
    const truth = JSON.parse(readFileSync(join(fixture, 'interleaved.json'), 'utf8')) as { pages: { flows: { paras: string[] }[] }[] };
    const para = truth.pages[0]!.flows[0]!.paras[0]!;
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'docs')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(host.url);
    await page.getByLabel('Search').fill(
      `"${para
        .split(' ')
        .slice(0, 6)
        .join(' ')
        .replace(/[^\p{L} ]/gu, '')}"`,
    );
    const first = page.locator('.hit').first();
    await expect.poll(() => first.locator('.label').innerText()).toMatch(/^gazette\.pdf · p\. 1\b/);
    await first.click();
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="1"]').waitFor();
    const canvas = (await page.locator('canvas[data-page="1"]').boundingBox())!;
    await page.screenshot({ path: join(ARTIFACTS, 'web-pdf-columns.png') });
    const boxes = await page
      .locator('.textLayer .hl-span')
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as { left: number; right: number }));
    expect(boxes.length).toBeGreaterThan(3);
    // The first column runs from x 36 to about 207 of the page's 612.
    const column = (canvas.width * 214) / 612;
    for (const b of boxes) expect(b.right - canvas.x).toBeLessThan(column);
    expect((await page.locator('.textLayer .hl-span').allInnerTexts()).join(' ')).toContain(para.split(' ').slice(0, 4).join(' '));
    expect(errors).toEqual([]);
    await page.close();
    await host.stop();
  }, 60_000);

  it('typing faster than pages render: the page on screen is the top hit’s, drawn once, its marks its own passage’s', async () => {
    const dir = await tempDir();
    mkdirSync(join(dir, 'docs'));
    // One PDF a word, each cited on another page: every keystroke opens another document at another page.
    const words = ['alder', 'alpaca', 'alpine', 'altitude', 'altimeter'];
    for (const [i, w] of words.entries()) {
      // Big enough (over 128 KB) that pdf.js fetches a page's part of the file by range when it is asked for.
      const filler = (n: number, k: number): string =>
        `Filler line ${k} of page ${n + 1} about nothing in particular ${((n * 7919 + k * 104729) ** 2).toString(36)}.`;
      const about = (x: string, n: number) => [
        `Page ${n + 1} tells of the ${x} and nothing else.`,
        `The ${x} is described at length on this page only.`,
        `Every line here repeats the ${x} so it ranks first.`,
      ];
      // alpaca.pdf also has a guanaco, far from its alpaca: another page, another part of the file.
      const pages = Array.from({ length: 400 }, (_, n) => ({
        lines:
          n === 100 + i
            ? about(w, n)
            : n === 389 && w === 'alpaca'
              ? about('guanaco', n)
              : Array.from({ length: 30 }, (_, k) => filler(n, k)),
      }));
      writeFileSync(join(dir, 'docs', `${w}.pdf`), await makePdf({ pages }));
    }
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'docs')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(host.url);
    // Once alpaca.pdf is open, its parts come slowly (800 ms): the guanaco's page, far into the file, is
    // still on its way when the next hit replaces it — as when typing goes faster than pages are drawn.
    let hold = false;
    await page.route(/\/doc\//, async (route) => {
      if (hold && route.request().headers()['range']) await new Promise((res) => setTimeout(res, 800));
      await route.continue().catch(() => undefined);
    });
    await page.getByLabel('Search').fill('alpaca');
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="102"]').waitFor();
    hold = true;
    await page.getByLabel('Search').fill('guanaco');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^alpaca\.pdf · p\. 390/);
    await page.waitForTimeout(100);
    hold = false;
    await page.getByLabel('Search').fill('altimeter');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^altimeter\.pdf · p\. 105/);
    await page.locator('.pdf-holder[data-state="ready"] canvas[data-page="105"]').waitFor();
    await page.waitForTimeout(1500); // any render still on its way would have drawn by now
    expect(await page.locator('.pdf-holder canvas').count()).toBe(1);
    expect(await page.locator('.pdf-holder .textLayer').count()).toBe(1);
    const marked = await page.locator('.textLayer .hl-span').allInnerTexts();
    expect(marked.length).toBeGreaterThan(0);
    for (const t of marked) expect(t).not.toMatch(/alder|alpaca|alpine|altitude/);
    expect(marked.join(' ')).toMatch(/altimeter/);
    await page.close();
    await host.stop();
  }, 60_000);

  it('a broken file in a drop is reported with its reason; the rest is indexed and nothing indexed before is lost', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'keep.md': '# Keep\n\nthe heron stays indexed\n' });
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'keep.md')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
    // No language model anywhere: the ask panel still shows the evidence, and says how to start Ollama.
    const down = await startOllamaStub();
    await down.close();
    process.env.KB_OLLAMA_HOST = down.url;
    const host = await kbServe(data).finally(() => delete process.env.KB_OLLAMA_HOST);
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/1 document · engine ready/);
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByLabel('Question').fill('does the heron stay indexed');
    await page.getByLabel('Question').press('Enter');
    await page.locator('.ask-sources li').first().waitFor();
    expect(await page.locator('.ask-status').innerText()).toContain(`Ollama is not running at ${down.url}. Start it with: ollama serve`);
    expect(await page.locator('.ask-sources li').first().innerText()).toMatch(/\[1\] keep\.md/);
    await drop(page, [
      { name: 'broken.pdf', type: 'application/pdf', bytes: Buffer.from('%PDF-1.7\nthis is not really a pdf\n') },
      { name: 'new.md', type: 'text/markdown', bytes: Buffer.from('# New\n\nthe otter arrives\n') },
    ]);
    await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('.ingest-summary .ingest-head').innerText()).toMatch(/1 added · 1 failed/);
    expect(await page.locator('.ingest-errors').innerText()).toMatch(/broken\.pdf[\s\S]*(PARSE|CORRUPT|INVALID)/);
    // The failure names the user's file, not the server's copy of it, and only once.
    const failure = await page.locator('.ingest-errors li').innerText();
    expect(failure).toMatch(/^broken\.pdf /);
    expect(failure).not.toMatch(/uploads/);
    expect(failure.match(/broken\.pdf/g)).toHaveLength(1);
    await page.getByLabel('Search').fill('heron');
    await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^keep\.md/);
    await page.close();
  }, 60_000);

  it.skipIf(!corporaDir())(
    'renders a scanned PDF page (CCITT/JBIG2 images, decoded by pdf.js WebAssembly) with its ink',
    async () => {
      const { page, host } = await served([join(corporaDir()!, 'pdf/pdfplumber/issue-203-decimalize.pdf')], { width: 1200, height: 900 });
      const wasmBlocked: string[] = [];
      page.on('console', (m) => /Jbig2Error|WebAssembly|wasm/i.test(m.text()) && wasmBlocked.push(m.text()));
      await page.goto(host.url);
      // Its title holds the word: found whatever OCR made of the Chinese text.
      await page.getByLabel('Search').fill('decimalize');
      await page.locator('.hit').first().click();
      const canvas = page.locator('.pdf-holder[data-state="ready"] canvas');
      await canvas.waitFor({ timeout: 30_000 });
      const ink = await canvas.evaluate((c) => {
        const el = c as unknown as {
          width: number;
          height: number;
          getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
        };
        const d = el.getContext('2d').getImageData(0, 0, el.width, el.height).data;
        let dark = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i]! + d[i + 1]! + d[i + 2]! < 300) dark++;
        return dark / (el.width * el.height);
      });
      // A page of printed Chinese: a few per cent of its pixels are ink (a blank render has none).
      expect(ink).toBeGreaterThan(0.001);
      expect(wasmBlocked).toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'web-scanned-pdf.png') });
      await page.close();
      await host.stop();
    },
    90_000,
  );

  it('says so when the server is gone, and reconnects by itself when the same data dir is served again', async () => {
    const data = await indexedNotes({ 'a.md': '# A\n\nthe walrus swims\n' });
    const first = await kbServe(data);
    // The access token is kept for this data dir, readable by its owner only.
    expect(statSync(join(data, 'serve-token')).mode & 0o777).toBe(0o600);
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(first.url);
    await page.getByLabel('Search').fill('walrus');
    await page.locator('.hit').first().waitFor();
    await first.stop();
    const banner = page.getByRole('alert');
    await expect.poll(() => banner.innerText()).toMatch(/Lost the connection to kb\. Reconnecting/);
    // A search meanwhile says why it has no answer, instead of an empty pane.
    await page.getByLabel('Search').fill('swims');
    await expect.poll(() => page.locator('.results .error').innerText()).toMatch(/lost the connection to kb/);
    await page.screenshot({ path: join(ARTIFACTS, 'web-disconnected.png') });
    // The same data dir served again on the same port: the page comes back with no new link.
    const second = await kbServe(data, first.port);
    expect(second.token).toBe(first.token);
    await expect.poll(() => banner.count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.locator('.hit .label').first().innerText(), { timeout: 15_000 }).toMatch(/^a\.md/);
    await page.close();
    await second.stop();
  }, 60_000);

  it('arrow keys act on the focused region only: the hit list, the ask box, the viewer', async () => {
    const long = Array.from({ length: 300 }, (_, i) => `line ${i + 1} of the long walrus log`).join('\n');
    const data = await indexedNotes({
      'a.md': '# A\n\nthe walrus swims\n',
      'b.md': '# B\n\nthe walrus sleeps\n',
      'long.txt': `walrus diary\n${long}\n`,
    });
    const host = await kbServe(data);
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/3 documents · engine ready/);
    await page.getByLabel('Search').pressSequentially('walrus', { delay: 20 });
    // The answer to the whole word, not to a prefix typed on the way (a late one would reset the list).
    await expect.poll(() => page.locator('.results').getAttribute('data-query')).toBe('walrus');
    await expect.poll(() => page.locator('.hit').count()).toBeGreaterThan(2);
    const active = (): Promise<number> => page.locator('.hit').evaluateAll((els) => els.findIndex((el) => el.classList.contains('active')));
    await expect.poll(active).toBe(0);
    await page.keyboard.press('ArrowDown');
    await expect.poll(active).toBe(1);
    // In the ask box, ↑/↓ belong to the text.
    await page.locator('header nav').getByRole('button', { name: 'Ask' }).click();
    await page.getByLabel('Question').fill('first line\nsecond line');
    await page.getByLabel('Question').press('ArrowUp');
    await page.getByLabel('Question').press('ArrowDown');
    await page.getByLabel('Question').press('ArrowDown');
    expect(await active()).toBe(1);
    await page.locator('header nav').getByRole('button', { name: 'Ask' }).click();
    // Open the long note; in the viewer, ↓ scrolls it and leaves the hits alone.
    const longHit = page.locator('.hit', { hasText: 'long.txt' }).first();
    const index = await page.locator('.hit').evaluateAll((els) => els.findIndex((el) => (el.textContent ?? '').includes('long.txt')));
    await longHit.click();
    await page.getByLabel('Search').focus();
    await page.keyboard.press('Enter');
    const viewer = page.getByLabel('Viewer');
    await expect.poll(() => viewer.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
    // The text loaded and scrolled to the cited lines, and still: a late load would move it back.
    await expect.poll(() => viewer.locator('.line.hl', { hasText: 'walrus' }).count()).toBeGreaterThan(0);
    await expect.poll(() => viewer.locator('.line', { hasText: 'line 300 of the long walrus log' }).count()).toBe(1);
    let last = -1;
    const still = async (): Promise<boolean> => {
      const now = await viewer.evaluate((el) => el.scrollTop);
      const same = now === last;
      last = now;
      return same;
    };
    await expect.poll(still, { interval: 250 }).toBe(true);
    const before = last;
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown');
    expect(await active()).toBe(index);
    await expect.poll(() => viewer.evaluate((el) => el.scrollTop)).toBeGreaterThan(before);
    await page.close();
    await host.stop();
  });

  it('keeps the footer at the bottom and the panes filling the window when there is little to show', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    for (const viewport of [
      { width: 1400, height: 900 },
      { width: 800, height: 700 },
    ]) {
      const page = await browser.newPage({ viewport });
      await page.goto(host.url);
      await expect.poll(() => page.locator('footer').innerText()).toMatch(/0 documents · engine ready/);
      // First open (nothing indexed, no ingest panel), then with the ask drawer open.
      await expectFilledLayout(page, `first open at ${viewport.width}×${viewport.height}`);
      await page.getByRole('button', { name: 'Ask' }).click();
      await expectFilledLayout(page, `ask at ${viewport.width}×${viewport.height}`);
      await page.screenshot({ path: join(ARTIFACTS, `web-layout-${viewport.width}.png`) });
      await page.close();
    }
    await host.stop();
  });

  it('a browser opened without the token signs in on a page with a field for it', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    const page = await browser.newPage({ viewport: { width: 900, height: 600 } });
    await page.goto(new URL(host.url).origin + '/');
    await page.getByLabel('Token').fill('kb_not_a_token_of_this_server');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/kb does not know that token/);
    await page.getByLabel('Token').fill(host.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
    expect(new URL(page.url()).searchParams.get('token')).toBeNull();
    // The printed address signs in too, and its token leaves the address at once: a search's address never carries it.
    const printed = await browser.newPage();
    await printed.goto(host.url);
    await expect.poll(() => printed.locator('footer').innerText()).toMatch(/engine ready/);
    expect(new URL(printed.url()).searchParams.get('token')).toBeNull();
    await printed.getByLabel('Search').fill('anything');
    await expect.poll(() => new URL(printed.url()).searchParams.get('q')).toBe('anything');
    expect(printed.url()).not.toContain(host.token);
    await printed.close();
    await page.close();
    await host.stop();
  }, 60_000);

  it('two different files dropped under one name are both kept and found; the same file again is unchanged', async () => {
    const dir = await tempDir();
    const host = await kbServe(join(dir, 'data'));
    const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
    await page.goto(host.url);
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/engine ready/);
    const dropOne = async (text: string): Promise<string> => {
      await drop(page, [{ name: 'todo.txt', type: 'text/plain', bytes: Buffer.from(text) }]);
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 30_000 });
      const said = await page.locator('.ingest-summary .ingest-head span').innerText();
      await page.locator('.ingest-summary').getByRole('button', { name: 'Close' }).click();
      return said;
    };
    expect(await dropOne('buy walrus food\n')).toMatch(/^1 added/);
    expect(await dropOne('call the heron vet\n')).toMatch(/^1 added/);
    expect(await dropOne('buy walrus food\n')).toMatch(/^0 added · 1 unchanged/);
    for (const word of ['walrus', 'heron']) {
      await page.getByLabel('Search').fill(word);
      await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^todo\.txt/);
    }
    await expect.poll(() => page.locator('footer').innerText()).toMatch(/2 documents/);
    // Its citation names the file as it was dropped, not kb's copy under uploads/ (a browser never says where it lives).
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.locator('.hit').first().click();
    await page.getByRole('button', { name: 'Copy citation' }).click();
    const clip = (): Promise<string> =>
      page.evaluate(() =>
        (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText(),
      );
    await expect.poll(clip).toBe('todo.txt#L1-L1');
    expect(await page.locator('.viewer .uri, article .uri').first().innerText()).toBe('todo.txt#L1-L1');
    await page.close();
    await host.stop();
  }, 60_000);

  it.skipIf(!corporaDir())(
    'a hit on a scanned PDF page is marked where OCR read it, though the page has no text to find it in',
    async () => {
      const dir = await tempDir();
      const { PDFDocument } = await import('pdf-lib');
      const doc = await PDFDocument.create();
      const png = await doc.embedPng(readFileSync(join(corporaDir()!, 'images/tesseract.js/testocr.png')));
      doc.addPage([612, 792]).drawImage(png, { x: 56, y: 400, width: 500, height: (500 * png.height) / png.width });
      mkdirSync(join(dir, 'in'));
      writeFileSync(join(dir, 'in/scan.pdf'), await doc.save());
      const data = join(dir, 'data');
      expect(kb(['ingest', join(dir, 'in')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
      const host = await kbServe(data);
      const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
      await page.goto(host.url);
      await page.getByLabel('Search').fill('quick brown dog');
      await page.locator('.hit').first().click();
      await page.locator('.pdf-holder[data-state="ready"]').waitFor({ timeout: 30_000 });
      const region = (await page.locator('.ocr-region').boundingBox())!;
      const canvas = (await page.locator('.pdf-holder canvas').boundingBox())!;
      // Over the picture: its left edge 56 pt in of 612, its bottom 392 pt down of 792.
      expect(region.x - canvas.x).toBeGreaterThan(canvas.width * 0.08);
      expect(region.y + region.height - canvas.y).toBeLessThan(canvas.height * 0.51);
      expect(region.width * region.height).toBeGreaterThan(canvas.width * canvas.height * 0.05);
      await page.screenshot({ path: join(ARTIFACTS, 'web-ocr-pdf-mark.png') });
      await page.close();
      await host.stop();
    },
    90_000,
  );

  it.skipIf(!corporaDir())(
    'a scan read while the run goes on says so in its line: no "read next" about a file already read',
    async () => {
      const dir = await tempDir();
      const host = await kbServe(join(dir, 'data'));
      const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
      await page.goto(host.url);
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        new MutationObserver(() => {
          for (const li of Array.from(document.querySelectorAll<HTMLElement>('.ingest-files li')))
            seen.push(
              `${li.dataset.outcome} ${li.querySelector('.name')?.textContent ?? ''}: ${li.querySelector('.words')?.textContent ?? ''}`,
            );
        }).observe(document.body, { childList: true, subtree: true, characterData: true });
      });
      const images = join(corporaDir()!, 'images/tesseract.js');
      // Several scans, read one after another once every file is in: while the later ones are read, the
      // first one's line learns that it was read.
      await drop(
        page,
        ['testocr.png', 'bill.png', 'cosmic.png', 'simple.png'].map((name, i) => ({
          name: `${i + 1}-${name}`,
          type: 'image/png',
          bytes: readFileSync(join(images, name)),
        })),
      );
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 120_000 });
      const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      expect(seen.some((l) => l === 'added 1-testocr.png: added; its text was read')).toBe(true);
      // Never before it was listed as waiting.
      expect(seen.findIndex((l) => l.startsWith('waiting 1-testocr.png'))).toBeLessThan(
        seen.indexOf('added 1-testocr.png: added; its text was read'),
      );
      await page.close();
      await host.stop();
    },
    150_000,
  );

  it.skipIf(!corporaDir())(
    'real audio, a damaged scan and notes dropped together: true counts, and the Library says indexed, waiting or failed with the reason, as kb ls does',
    async () => {
      const dir = await tempDir();
      const data = join(dir, 'data');
      const host = await kbServe(data);
      const page = await browser.newPage({ viewport: { width: 1200, height: 760 } });
      await page.goto(host.url);
      const png = readFileSync(join(corporaDir()!, 'images/tesseract.js/testocr.png'));
      // Every line the list of files shows while it runs, to see that none claimed more than was known.
      await page.evaluate(() => {
        const seen: string[] = [];
        (window as unknown as { seen: string[] }).seen = seen;
        new MutationObserver(() => {
          for (const li of Array.from(document.querySelectorAll<HTMLElement>('.ingest-files li')))
            seen.push(`${li.dataset.outcome} ${li.querySelector('.name')?.textContent ?? ''}`);
        }).observe(document.body, { childList: true, subtree: true });
      });
      await drop(page, [
        { name: 'jfk.mp3', type: 'audio/mpeg', bytes: readFileSync(join(corporaDir()!, 'audio/jfk.mp3')) },
        { name: 'scan-cut.png', type: 'image/png', bytes: png.subarray(0, 3000) },
        { name: 'testocr.png', type: 'image/png', bytes: png },
        { name: 'notes.md', type: 'text/markdown', bytes: Buffer.from('# Notes\n\nthe heron waits by the river\n') },
      ]);
      await page.locator('.ingest[data-state="done"]').waitFor({ timeout: 60_000 });
      // The damaged image fails once, and is not also counted as added.
      expect(await page.locator('.ingest-summary .ingest-head').innerText()).toMatch(/^3 added · 1 failed/);
      expect(await page.locator('.ingest-errors summary').innerText()).toBe('1 file could not be added');
      expect(await page.locator('.ingest-errors').innerText()).toMatch(/scan-cut\.png[\s\S]*PARSE_FAILED[\s\S]*could not be decoded/);
      expect(await page.locator('.ingest-summary').innerText()).toMatch(/1 audio file waits for a speech model/);
      await page.screenshot({ path: join(ARTIFACTS, 'web-drop-summary.png') });
      const order = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
      const seen = new Set(order);
      // A scan is listed as waiting for its text until OCR has read it; the damaged one is never ✓ added.
      expect([...seen].filter((l) => l.endsWith(' scan-cut.png') && !l.startsWith('failed') && !l.startsWith('waiting'))).toEqual([]);
      expect(seen.has('added notes.md')).toBe(true);
      const firstWaiting = order.indexOf('waiting testocr.png');
      expect(firstWaiting).toBeGreaterThanOrEqual(0);
      expect(order.slice(0, firstWaiting).some((l) => l.endsWith(' testocr.png'))).toBe(false);
      // A recording no speech model can transcribe is never ✓ added: it waits, and its line says for what.
      expect(seen.has('waiting jfk.mp3')).toBe(true);
      expect(seen.has('added jfk.mp3')).toBe(false);
      await page.getByRole('button', { name: 'Close' }).click();

      await page.getByRole('button', { name: 'Library' }).click();
      const row = (name: string) => page.locator('.library tbody tr', { hasText: name });
      await expect.poll(() => page.locator('.library tbody tr').count()).toBe(4);
      expect(await row('jfk.mp3').getAttribute('data-status')).toBe('waiting');
      // In the app, the next step is the view and its button, not a command.
      expect(await row('jfk.mp3').locator('.reason').innerText()).toMatch(/waiting for a speech model: get whisper-base\.en under Models/);
      expect(await row('jfk.mp3').locator('.reason').innerText()).not.toMatch(/kb models/);
      expect(await row('scan-cut.png').getAttribute('data-status')).toBe('failed');
      expect(await row('scan-cut.png').locator('.reason').innerText()).toMatch(/PARSE_FAILED/);
      expect(await row('testocr.png').getAttribute('data-status')).toBe('indexed');
      expect(await row('notes.md').getAttribute('data-status')).toBe('indexed');
      expect(await page.locator('.library-head').innerText()).toMatch(/4 documents[\s\S]*1 failed[\s\S]*1 waiting/);
      // The footer counts every document, as the Library and Status do, the failed among them said.
      await expect.poll(() => page.locator('footer').innerText()).toMatch(/^4 documents \(1 failed\)/);
      // Sorted by name at first; the recording's length; a failed file's real size; the dropped file's own name.
      expect(await page.locator('.library tbody tr .title').allInnerTexts()).toEqual(['jfk.mp3', 'Notes', 'scan-cut.png', 'testocr.png']);
      expect(await row('jfk.mp3').innerText()).toMatch(/0:11/);
      expect(await row('scan-cut.png').innerText()).toMatch(/3\.0 KB/);
      expect(await row('jfk.mp3').locator('.path').first().innerText()).toBe('jfk.mp3 (uploaded)');
      // By status, failed first; by size, largest first on a second click.
      await page
        .locator('.library th')
        .getByRole('button', { name: /Status/ })
        .click();
      // Sorted and filtered by the engine: each answer arrives a moment after the click.
      await expect.poll(() => page.locator('.library tbody tr .title').first().innerText()).toBe('scan-cut.png');
      await page.locator('.library th').getByRole('button', { name: /Size/ }).click();
      await page.locator('.library th').getByRole('button', { name: /Size/ }).click();
      await expect.poll(() => page.locator('.library tbody tr .title').first().innerText()).toBe('jfk.mp3');
      // "1 failed" shows just that one; a filter that matches nothing says so and offers them all back.
      await page.locator('.library-head').getByRole('button', { name: '1 failed' }).click();
      await expect.poll(() => page.locator('.library tbody tr .title').allInnerTexts()).toEqual(['scan-cut.png']);
      await page.getByLabel('Filter documents').fill('otter');
      await expect.poll(() => page.locator('.library .none').innerText()).toMatch(/No document failed matches “otter”/);
      await page.locator('.library .none').getByRole('button', { name: 'Show all 4' }).click();
      await expect.poll(() => page.locator('.library tbody tr').count()).toBe(4);
      await page.screenshot({ path: join(ARTIFACTS, 'web-library-status.png'), fullPage: true });
      // The same words as kb ls, for the same files.
      const ls = kb(['ls', '--json', '--data-dir', data]).json() as { documents: { path: string; status: string }[] };
      for (const d of ls.documents) expect(await row(d.path.split('/').pop()!).getAttribute('data-status')).toBe(d.status);
      // A title opened from the Library is shown alone: the last query's unrelated hits go.
      await page.getByLabel('Search').fill('heron');
      await expect.poll(() => page.locator('.hit').count()).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Library' }).click();
      await row('testocr.png').getByRole('button', { name: 'testocr.png' }).click();
      await expect.poll(() => page.locator('.viewer').innerText()).toMatch(/testocr\.png/);
      expect(await page.getByLabel('Search').inputValue()).toBe('');
      expect(await page.locator('.hit').count()).toBe(0);
      await page.close();
    },
    120_000,
  );

  it.skipIf(!corporaDir())(
    'boxes the word itself on a photo with an EXIF orientation (simple-90.jpg, orientation 6)',
    async () => {
      const { page, host } = await served([join(corporaDir()!, 'images/tesseract.js/simple-90.jpg')]);
      await page.goto(host.url);
      await page.getByLabel('Search').fill('tesseract');
      await page.locator('.image-holder[data-state="ready"] .region').waitFor();
      // The picture as the browser shows it (EXIF applied), and the share of dark pixels in the box
      // against the whole picture: the box is on the word.
      const ink = await page.evaluate(() => {
        type El = { getBoundingClientRect(): { left: number; top: number; width: number; height: number } };
        const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown; createElement(t: 'canvas'): unknown } })
          .document;
        const img = doc.querySelector('.image-holder img') as El & { naturalWidth: number; naturalHeight: number };
        const region = doc.querySelector('.image-holder .region') as El;
        const c = doc.createElement('canvas') as {
          width: number;
          height: number;
          getContext(k: '2d'): {
            drawImage(i: unknown, x: number, y: number): void;
            getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
          };
        };
        c.width = img.naturalWidth;
        c.height = img.naturalHeight;
        const ctx = c.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const ir = img.getBoundingClientRect();
        const rr = region.getBoundingClientRect();
        const s = c.width / ir.width;
        const dark = (x: number, y: number, w: number, h: number): number => {
          const d = ctx.getImageData(x, y, w, h).data;
          let n = 0;
          for (let i = 0; i < d.length; i += 4) if (d[i]! + d[i + 1]! + d[i + 2]! < 384) n++;
          return n / (w * h);
        };
        const x = Math.round((rr.left - ir.left) * s),
          y = Math.round((rr.top - ir.top) * s);
        const w = Math.max(1, Math.min(c.width - x, Math.round(rr.width * s))),
          h = Math.max(1, Math.min(c.height - y, Math.round(rr.height * s)));
        return { shown: [c.width, c.height], inBox: dark(x, y, w, h), overall: dark(0, 0, c.width, c.height) };
      });
      expect(ink.shown).toEqual([320, 180]);
      expect(ink.inBox).toBeGreaterThan(0.1);
      expect(ink.inBox).toBeGreaterThan(3 * ink.overall);
      await page.screenshot({ path: join(ARTIFACTS, 'web-image-exif.png') });
      await page.close();
    },
    60_000,
  );

  it.skipIf(!corporaDir())(
    'opens an image hit with its cited region boxed over the picture',
    async () => {
      const { page, host } = await served([join(corporaDir()!, 'images/tesseract.js/testocr.png')]);
      await page.goto(host.url);
      await page.getByLabel('Search').fill('quick brown dog');
      await expect.poll(() => page.locator('.hit .label').first().innerText()).toMatch(/^testocr\.png · /);
      await page.locator('.image-holder[data-state="ready"] .region').waitFor();
      // The box sits where the citation says, scaled to the picture as shown.
      const uri = await page.locator('.viewer .uri').innerText();
      const [x, y, w, h] = /#xywh=(\d+),(\d+),(\d+),(\d+)/.exec(uri)!.slice(1).map(Number);
      const shown = await page.locator('.image-holder img').boundingBox();
      const box = await page.locator('.image-holder .region').boundingBox();
      const scale = shown!.width / 640;
      expect(Math.abs(box!.x - shown!.x - x! * scale)).toBeLessThan(2);
      expect(Math.abs(box!.y - shown!.y - y! * scale)).toBeLessThan(2);
      expect(Math.abs(box!.width - w! * scale)).toBeLessThan(2);
      expect(Math.abs(box!.height - h! * scale)).toBeLessThan(2);
      await page.screenshot({ path: join(ARTIFACTS, 'web-image-region.png') });
      await expectFilledLayout(page, 'an image open');
      await page.close();
    },
    60_000,
  );
});

/** Drops files onto the page as a user's drag from the desktop would (a DataTransfer with Files). */
/** A data dir holding these notes (written under notes/ and ingested with kb ingest). */
async function indexedNotes(files: Record<string, string>): Promise<string> {
  const dir = await tempDir();
  await writeTree(dir, Object.fromEntries(Object.entries(files).map(([name, text]) => [`notes/${name}`, text])));
  const data = join(dir, 'data');
  expect(kb(['ingest', join(dir, 'notes')], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
  return data;
}

/** A fresh index of these files (kb ingest), served by kb serve and open in a new page. */
async function served(
  paths: string[],
  viewport = { width: 1200, height: 760 },
): Promise<{ page: Page; host: Awaited<ReturnType<typeof kbServe>> }> {
  const dir = await tempDir();
  const data = join(dir, 'data');
  expect(kb(['ingest', ...paths], { env: { KB_DATA_DIR: data, KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
  const host = await kbServe(data);
  const page = await browser.newPage({ viewport });
  return { page, host };
}

/** The footer sits at the window's bottom edge and the panes fill the space above it. */
async function expectFilledLayout(page: Page, what: string): Promise<void> {
  const l = await page.evaluate(() => {
    const doc = (
      globalThis as unknown as { document: { querySelector(s: string): { getBoundingClientRect(): { top: number; bottom: number } } } }
    ).document;
    const win = globalThis as unknown as { innerHeight: number };
    return {
      footer: doc.querySelector('footer').getBoundingClientRect(),
      main: doc.querySelector('main').getBoundingClientRect(),
      height: win.innerHeight,
    };
  });
  expect(Math.abs(l.footer.bottom - l.height), what).toBeLessThanOrEqual(1);
  expect(Math.abs(l.main.bottom - l.footer.top), what).toBeLessThanOrEqual(1);
}

async function drop(page: Page, files: { name: string; type: string; bytes: Buffer }[], screenshot?: string): Promise<void> {
  const dt = await page.evaluateHandle(
    (fs) => {
      // Runs in the page, which has DOM types this Node-typed test file does not.
      const { DataTransfer } = globalThis as unknown as { DataTransfer: new () => { items: { add(f: File): void } } };
      const dt = new DataTransfer();
      for (const f of fs) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      return dt;
    },
    files.map((f) => ({ name: f.name, type: f.type, b64: f.bytes.toString('base64') })),
  );
  await page.dispatchEvent('main', 'dragenter', { dataTransfer: dt });
  await page.dispatchEvent('main', 'dragover', { dataTransfer: dt });
  await page.locator('.drop-target').waitFor();
  if (screenshot) await page.screenshot({ path: screenshot });
  await page.dispatchEvent('main', 'drop', { dataTransfer: dt });
}
