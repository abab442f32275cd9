// Every view of the app, light and dark, at 1400×900 and 800×700, into docs/screens/ (linked from the
// README), each checked for what a reviewer would see first: nothing wider than the window, the footer
// at the bottom edge, no control drawn over another. Exits non-zero, naming the view, when one fails.
// Run: npx tsx scripts/view-shots.ts   (needs Chromium and ../shared/corpora; builds nothing: npm run build first)
import { servedFrom } from '../tools/serve-output.js';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import * as F from '../test/support/format-fixtures.js';

const root = resolve(import.meta.dirname, '..');
const corpora = resolve(root, '../shared/corpora');
const out = join(root, 'docs/screens');
mkdirSync(out, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'kb-views-'));
const kb = (data: string, args: string[]): Promise<void> =>
  new Promise((res, rej) =>
    spawn(process.execPath, [join(root, 'bin/kb.js'), ...args, '--data-dir', data], {
      stdio: 'inherit',
      env: { ...process.env, KB_CONFIG: join(work, 'none.yaml') },
    }).on('exit', (c) => (c === 0 ? res() : rej(new Error(`kb ${args[0]} exited ${c}`)))),
  );

/** kb serve on a data dir; its URL and a stop function. */
async function serve(data: string): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [join(root, 'bin/kb.js'), 'serve', '--json', '--data-dir', data], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, KB_CONFIG: join(work, 'none.yaml'), KB_OLLAMA_HOST: 'http://127.0.0.1:9' },
  });
  const first = await new Promise<string>((res) => {
    let s = '';
    child.stdout.on('data', (d: Buffer) => (s += d.toString()).includes('\n}') && res(s));
  });
  return { url: servedFrom(first).url, stop: () => child.kill() };
}

// A demo library: this repository's docs and contracts, a real PDF, a scan, a photo, a recording, and
// a folder kept in sync.
const demo = join(work, 'demo');
const notes = join(work, 'notes');
mkdirSync(notes);
writeFileSync(
  join(notes, 'garden.md'),
  '# Garden\n\n## Tomatoes\n\nTomatoes need sun, water every morning, and a stake once they reach a foot.\n',
);
copyFileSync(join(corpora, 'audio/jfk.mp3'), join(work, 'jfk.mp3'));
// Word, a spreadsheet and an e-book, written by the fixtures the tests use.
const office = join(work, 'office');
mkdirSync(office);
const reportParas: F.Para[] = [
  { text: 'Garden plan 2025', heading: 1 },
  { text: 'What we grow, where, and what it costs.' },
  { text: 'Beds', heading: 2 },
];
for (const [bed, crop] of [
  ['North', 'beans and peas'],
  ['South', 'tomatoes and basil'],
  ['East', 'squash'],
  ['West', 'herbs'],
])
  reportParas.push({ text: `The ${bed} bed: ${crop}, watered by the drip line twice a week in summer.` });
reportParas.push(
  { text: 'Costs', heading: 2 },
  {
    text: '',
    table: [
      ['Item', 'Cost'],
      ['Drip line', '48'],
      ['Seeds', '35'],
      ['Compost', '60'],
    ],
  },
  { text: 'The compost delivery comes in March, before the first sowing.' },
);
writeFileSync(
  join(office, 'garden-plan.docx'),
  await F.docx(reportParas, { title: 'Garden plan 2025', author: 'Sam Green', keywords: ['garden'] }),
);
const harvest = [
  ['Date', 'Bed', 'Crop', 'Kilograms'],
  ...Array.from({ length: 120 }, (_, i) => [
    `2024-${String(6 + Math.floor(i / 30)).padStart(2, '0')}-${String((i % 30) + 1).padStart(2, '0')}`,
    ['North', 'South', 'East', 'West'][i % 4]!,
    ['beans', 'tomatoes', 'squash', 'basil'][i % 4]!,
    String(((i * 7) % 23) / 10 + 0.5),
  ]),
];
harvest[61]![2] = 'heirloom tomatoes';
writeFileSync(join(office, 'harvest.csv'), harvest.map((r) => r.join(',')).join('\n'));
writeFileSync(
  join(office, 'seasons.epub'),
  await F.epub(
    [
      { title: 'Spring', paras: ['Sow peas as soon as the soil can be worked.', 'Harden off seedlings for a week before planting out.'] },
      {
        title: 'Summer',
        paras: [
          'Water deeply and less often, early in the morning.',
          'Pinch out tomato side shoots so the plant puts its strength into fruit.',
          'Mulch keeps the soil cool and the weeds down.',
        ],
      },
      { title: 'Autumn', paras: ['Save seed from the best plants.', 'Sow green manure on empty beds.'] },
    ],
    { title: 'A Year in the Garden', author: 'Sam Green' },
  ),
);
await kb(demo, ['ingest', office]);
await kb(demo, [
  'ingest',
  join(root, 'docs/architecture.md'),
  join(root, 'src/shared'),
  join(corpora, 'pdf/pdfplumber/issue-982-example.pdf'),
  join(corpora, 'images/tesseract.js/testocr.png'),
  join(work, 'jfk.mp3'),
]);
await kb(demo, ['add', notes, '--name', 'notes', '--tags', 'home']);
// Two files that cannot be read (a password-protected PDF, an empty one): the Library shows failures.
await kb(demo, [
  'ingest',
  join(corpora, 'pdf/py-pdf-sample-files/005-libreoffice-writer-password/libreoffice-writer-password.pdf'),
  join(corpora, 'pdf/pdfplumber/empty.pdf'),
]).catch(() => undefined);
const empty = join(work, 'empty');

const problems: string[] = [];

/** What a reviewer would catch at a glance, measured in the page. */
async function check(page: Page, name: string): Promise<void> {
  const r = await page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Document }).document;
    const win = globalThis as unknown as { innerWidth: number; innerHeight: number };
    const footer = doc.querySelector('footer')!.getBoundingClientRect();
    // Buttons and inputs of the header and toolbars must not sit on one another.
    // A control scrolled under a sticky bar (the PDF's page bar) is hidden, not drawn over: only those
    // seen at their own centre count.
    const controls = Array.from(doc.querySelectorAll('header > *, header nav button, .filters > *, .hit-actions > *, .pdf-nav > *'))
      .filter((e) => {
        const r = e.getBoundingClientRect();
        const at = doc.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return at !== null && (e.contains(at) || at.contains(e));
      })
      .map((e) => e.getBoundingClientRect());
    let overlaps = 0;
    for (let i = 0; i < controls.length; i++)
      for (let j = i + 1; j < controls.length; j++) {
        const a = controls[i]!;
        const b = controls[j]!;
        // (No helper functions in here: tsx names them with a __name the page does not have.)
        const aInB = a.left >= b.left && a.right <= b.right && a.top >= b.top && a.bottom <= b.bottom;
        const bInA = b.left >= a.left && b.right <= a.right && b.top >= a.top && b.bottom <= a.bottom;
        if (aInB || bInA) continue; // nav inside header
        if (a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1) overlaps++;
      }
    // A view that scrolls sideways inside its pane is as wide as a page that does.
    const inner = Math.max(
      0,
      ...Array.from(doc.querySelectorAll('main > .library, main > .page, .results')).map((e) => e.scrollWidth - e.clientWidth),
    );
    return {
      wide: Math.max(doc.documentElement.scrollWidth - win.innerWidth, inner),
      footerGap: Math.abs(footer.bottom - win.innerHeight),
      overlaps,
    };
  });
  if (r.wide > 0) problems.push(`${name}: ${r.wide}px wider than the window`);
  if (r.footerGap > 1) problems.push(`${name}: the footer is ${r.footerGap}px off the bottom edge`);
  if (r.overlaps > 0) problems.push(`${name}: ${r.overlaps} controls drawn over one another`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
});
const full = await serve(demo);
const fresh = await serve(empty);
try {
  for (const scheme of ['light', 'dark'] as const) {
    for (const [w, h] of [
      [1400, 900],
      [800, 700],
    ] as const) {
      const page = await browser.newPage({ viewport: { width: w, height: h }, deviceScaleFactor: 1, colorScheme: scheme });
      const shot = async (name: string): Promise<void> => {
        await page.waitForTimeout(500);
        const file = `${name}-${scheme}-${w}x${h}.png`;
        await check(page, file);
        await page.screenshot({ path: join(out, file) });
      };
      const view = async (name: string): Promise<void> => {
        await page.locator('header nav').getByRole('button', { name, exact: true }).click();
        await shot(name.toLowerCase());
      };
      await page.goto(fresh.url);
      await page.locator('.first-run').waitFor();
      await shot('first-run');
      await page.goto(full.url);
      await page.locator('footer').getByText('engine ready').waitFor();
      const search = page.getByLabel('Search');
      await search.fill('citation label');
      await page.locator('.hit', { hasText: 'citation.ts' }).first().click();
      await page.locator('.viewer .line.hl').first().waitFor();
      await shot('search-code');
      await search.fill('starry night');
      await page.locator('.hit').first().click();
      await page.locator('.pdf-holder[data-state="ready"]').waitFor();
      await shot('search-pdf');
      await search.fill('testocr');
      await page.locator('.hit').first().click();
      await page.locator('.image-holder[data-state="ready"]').waitFor();
      await shot('search-image');
      for (const [q, name] of [
        ['drip line', 'search-docx'],
        ['heirloom', 'search-sheet'],
        ['side shoots', 'search-epub'],
      ] as const) {
        await search.fill(q);
        await page.locator('.hit').first().click();
        await page.frameLocator('iframe.docview').locator('#kb-hit').waitFor();
        await shot(name);
      }
      await search.fill('jfk');
      await page.locator('.hit').first().click();
      await shot('search-audio-waiting');
      // A typo, corrected against the index's own words.
      await search.fill('tomatos nedd sun');
      await page.locator('.corrected').waitFor();
      await page.locator('.hit').first().click();
      await shot('search-typo');
      for (const v of ['Library', 'Folders', 'Models', 'Settings', 'Status']) await view(v);
      await page.locator('header nav').getByRole('button', { name: 'Library', exact: true }).click();
      await page
        .locator('.library-head')
        .getByRole('button', { name: /failed/ })
        .click();
      await shot('library-failed');
      await page.locator('header nav').getByRole('button', { name: 'Search', exact: true }).click();
      await page.locator('header nav').getByRole('button', { name: 'Ask', exact: true }).click();
      await page.getByLabel('Question').fill('How does kb cite a page of a PDF?');
      await page.getByLabel('Question').press('Enter');
      await page.locator('.ask-sources li').first().waitFor();
      await shot('ask');
      await page.close();
    }
  }
} finally {
  await browser.close();
  full.stop();
  fresh.stop();
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(
  `wrote ${out}: every view, light and dark, at 1400×900 and 800×700; none wider than the window, no footer adrift, no controls overlapping`,
);
