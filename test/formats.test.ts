// Word, OpenDocument, PowerPoint, EPUB, Excel, CSV/TSV, web pages and mail, written by the test with
// known text at known places: a phrase search cites the right paragraph, slide, rows, CFI, text
// fragment or message, `kb get` on that citation gives the phrase back, and a bad file of each kind
// fails alone with its code while everything indexed before stays found.
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import JSZip from 'jszip';
import { MIGRATIONS } from '../src/worker/store/migrations/index.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/open-engine.js';
import * as F from './support/format-fixtures.js';
import { makeCitation } from '../src/shared/citation.js';
import type { Anchor } from '../src/shared/wire.js';
import type { Engine } from '../src/worker/engine.js';
import { engineIn, kb, repoRoot, tempDir, writeTree } from './helpers.js';
import { VIEW_KEYS_SCRIPT } from '../src/shared/view-keys.js';

const PARAS: F.Para[] = [
  { text: 'Annual Report', heading: 1 },
  { text: F.filler(3, 1) },
  { text: '' },
  { text: 'Risks', heading: 2 },
  { text: 'The zeppelin hangar lease is the largest open risk.' },
  {
    text: '',
    table: [
      ['Item', 'Cost'],
      ['Helium refill', '400'],
    ],
  },
  { text: F.filler(3, 2) },
];

let dir = '';
let engine: Engine;
const files: Record<string, string> = {};

// One index for the whole file (helpers' temp folders and engines last one test only).
afterAll(async () => {
  engine?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-formats-'));
  const put = (name: string, bytes: Uint8Array | string): void => {
    files[name] = join(dir, 'docs', name);
    writeFileSync(files[name], bytes);
  };
  const { mkdirSync } = await import('node:fs');
  mkdirSync(join(dir, 'docs'));
  put('report.docx', await F.docx(PARAS, { title: 'Annual Report 2024', author: 'Grace Hopper', keywords: ['finance', 'board'] }));
  put(
    'notes.odt',
    await F.odt([{ text: 'Field notes', heading: 1 }, { text: F.filler(2, 3) }, { text: 'A narwhal surfaced near the pier.' }], {
      title: 'Field notes',
      author: 'Jane Doe',
    }),
  );
  put(
    'deck.pptx',
    await F.pptx([
      { title: 'Welcome', body: ['Agenda'] },
      { title: 'Results', body: ['Revenue grew'] },
      { title: 'Incidents', body: ['Two minor ones'], notes: 'Mention the albatross incident.' },
    ]),
  );
  put(
    'plans.odp',
    await F.odp([
      { title: 'Intro', body: ['hello'] },
      { title: 'Plans', body: ['Launch the kayak line'], notes: 'Budget is tight' },
    ]),
  );
  put(
    'book.epub',
    await F.epub(
      [
        { title: 'Beginnings', paras: [F.filler(6, 4)] },
        { title: 'The Storm', paras: [F.filler(4, 5), 'The lighthouse keeper lit the lamp.', F.filler(4, 6)] },
      ],
      { title: 'Sea Tales', author: 'Herman M', subjects: ['sea'] },
    ),
  );
  put(
    'budget.xlsx',
    await F.xlsx([
      { name: 'Summary', rows: [['Total', 1]] },
      {
        name: 'Costs',
        rows: [
          ['Item', 'Amount'],
          ['Rent', 1200],
          ['Quokka food', 55],
          ['Paper', 9],
        ],
      },
    ]),
  );
  put('cities.csv', 'name,city\nAlice,Paris\nBob,Timbuktu\nCleo,Oslo\n');
  put('cities.tsv', 'name\tcity\nDan\tReykjavik\n');
  put(
    'engines.html',
    F.html({
      title: 'Engines',
      sections: [{ heading: 'History', paras: [F.filler(6, 7), 'Babbage designed the analytical engine.', F.filler(6, 8)] }],
    }),
  );
  put('fragment.htm', '<h2>Exported note</h2><p>The pangolin enclosure opens in May.</p>');
  put(
    'lunch.eml',
    F.eml({
      from: 'Ann <ann@x.org>',
      to: 'bo@x.org',
      subject: 'Lunch plans',
      date: 'Tue, 1 Oct 2024 10:00:00 +0000',
      id: 'a1@x.org',
      body: 'Hi Bo,\n\nShall we try the falafel place?\n\nAnn',
    }),
  );
  put(
    'memo.eml',
    F.eml({
      from: 'Zed <z@x.org>',
      to: 'team@x.org',
      subject: 'Memo attached',
      date: 'Thu, 3 Oct 2024 09:00:00 +0000',
      id: 'memo1@x.org',
      body: 'See the attached memo.',
      attachments: [
        {
          name: 'memo.docx',
          type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          content: await F.docx([{ text: 'Memo', heading: 1 }, { text: 'The axolotl tank needs cleaning on Monday.' }]),
        },
        { name: 'photo.jpg', type: 'image/jpeg', content: new Uint8Array([0xff, 0xd8, 0xff, 0xe0]) },
      ],
    }),
  );
  put(
    'inbox.mbox',
    F.mbox([
      F.eml({
        from: 'c@x.org',
        to: 'd@x.org',
        subject: 'Birds',
        date: 'Tue, 1 Oct 2024 10:00:00 +0000',
        id: 'm1@x.org',
        body: 'About pelicans.',
      }),
      F.eml({
        from: 'e@x.org',
        to: 'f@x.org',
        subject: 'Seals',
        date: 'Wed, 2 Oct 2024 10:00:00 +0000',
        id: 'm2@x.org',
        body: 'From the desk: walruses were seen.',
        html: '<p>From the desk: walruses were seen.</p>',
      }),
    ]),
  );
  engine = await openEngine({ dataDir: join(dir, 'data') });
  const s = await engine.ingest([join(dir, 'docs')]);
  expect(s.errors).toEqual([]);
  expect(s.added).toBe(Object.keys(files).length);
}, 60_000);

const top = async (query: string, type?: string) => {
  const r = await engine.search({ query, mode: 'lexical', ...(type ? { type: type as 'docx' } : {}) });
  expect(r.results.length, `no hit for ${query}`).toBeGreaterThan(0);
  return r.results[0]!;
};

describe('structured formats', () => {
  it.each([
    ['zeppelin hangar', 'report.docx', 'docx', /^para=\d+(-\d+)?$/, 'The zeppelin hangar lease is the largest open risk.'],
    ['helium refill', 'report.docx', 'docx', /^para=/, 'Helium refill | 400'],
    ['narwhal', 'notes.odt', 'docx', /^para=/, 'A narwhal surfaced near the pier.'],
    ['albatross', 'deck.pptx', 'slides', /^slide=3$/, 'Mention the albatross incident.'],
    ['kayak', 'plans.odp', 'slides', /^slide=2$/, 'Launch the kayak line'],
    ['lighthouse keeper', 'book.epub', 'epub', /^epubcfi\(\/6\/4\[ch2\]!\/4\/2/, 'The lighthouse keeper lit the lamp.'],
    ['quokka', 'budget.xlsx', 'sheet', /^sheet=Costs&row=2-4$/, 'Quokka food | 55'],
    ['timbuktu', 'cities.csv', 'sheet', /^row=2-4$/, 'Bob | Timbuktu'],
    ['reykjavik', 'cities.tsv', 'sheet', /^row=2$/, 'Dan | Reykjavik'],
    ['babbage', 'engines.html', 'html', /^:~:text=/, 'Babbage designed the analytical engine.'],
    ['pangolin', 'fragment.htm', 'html', /^:~:text=/, 'The pangolin enclosure opens in May.'],
    ['falafel', 'lunch.eml', 'mail', /^L\d+-L\d+$/, 'Shall we try the falafel place?'],
    ['walruses', 'inbox.mbox', 'mail', /^msg=m2%40x\.org$/, 'walruses were seen'],
    ['axolotl tank', 'memo.eml', 'mail', /^msg=memo1%40x\.org$/, 'The axolotl tank needs cleaning on Monday.'],
  ])('%s: found in %s (%s), cited as #%s, and kb get gives it back', async (query, file, type, fragment, phrase) => {
    const hit = await top(query);
    expect(hit.citation.path).toBe(files[file]);
    expect(hit.source.type).toBe(type);
    const frag = hit.citation.uri.slice(hit.citation.uri.indexOf('#') + 1);
    expect(frag).toMatch(fragment);
    expect(hit.text).toContain(phrase.split(' | ')[0]);
    const span = await engine.get(hit.citation.uri);
    expect(span.text).toContain(phrase);
    // The same citation read back from a path and fragment, as a person types it.
    expect((await engine.get(`${files[file]}#${frag}`)).text).toContain(phrase);
    // Only that span: not the whole document.
    if (type !== 'mail' && type !== 'slides') expect(span.text.length).toBeLessThan(3000);
  });

  it('cites the exact paragraph, slide and rows asked for, and refuses a fragment of another format', async () => {
    expect((await engine.get(`${files['report.docx']}#para=5`)).text).toBe('The zeppelin hangar lease is the largest open risk.');
    expect((await engine.get(`${files['report.docx']}#para=6`)).text).toBe('Item | Cost\nHelium refill | 400');
    expect((await engine.get(`${files['deck.pptx']}#slide=2`)).text).toBe('Results\n\nRevenue grew');
    expect((await engine.get(`${files['budget.xlsx']}#sheet=Costs&row=3`)).text).toBe('Item | Amount\nQuokka food | 55');
    expect((await engine.get(`${files['cities.csv']}#row=3-4`)).text).toBe('name | city\nBob | Timbuktu\nCleo | Oslo');
    expect((await engine.get(`${files['lunch.eml']}#L3`)).text).toBe('Shall we try the falafel place?');
    expect((await engine.get(`${files['inbox.mbox']}#msg=m1%40x.org`)).text).toContain('About pelicans.');
    expect((await engine.get(`${files['engines.html']}#:~:text=Babbage%20designed`)).text).toBe('Babbage designed the analytical engine.');
    // No fragment: the whole document, cited as all of it.
    expect((await engine.get(files['report.docx']!)).citation.label).toBe('report.docx · ¶ 1–7');
    expect((await engine.get(files['deck.pptx']!)).citation.label).toBe('deck.pptx · slides 1–3');
    expect((await engine.get(files['cities.csv']!)).citation.label).toBe('cities.csv · rows 1–4');
    await expect(engine.get(`${files['report.docx']}#slide=1`)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/#para=/),
    });
    await expect(engine.get(`${files['budget.xlsx']}#sheet=Nope&row=2`)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/Summary, Costs/),
    });
  });

  it('takes title, author, date and keywords from each format', async () => {
    const docs = new Map((await engine.list()).map((d) => [d.path, d]));
    expect(docs.get(files['report.docx']!)).toMatchObject({
      title: 'Annual Report 2024',
      author: 'Grace Hopper',
      created: '2024-03-05T10:00:00Z',
      tags: ['board', 'finance'],
    });
    expect(docs.get(files['notes.odt']!)).toMatchObject({ title: 'Field notes', author: 'Jane Doe' });
    expect(docs.get(files['book.epub']!)).toMatchObject({ title: 'Sea Tales', author: 'Herman M', created: '2021-06-01', tags: ['sea'] });
    expect(docs.get(files['engines.html']!)).toMatchObject({ title: 'Engines', author: 'Ada Lovelace', tags: ['engines', 'notes'] });
    expect(docs.get(files['lunch.eml']!)).toMatchObject({
      title: 'Lunch plans',
      author: expect.stringContaining('ann@x.org'),
      created: '2024-10-01T10:00:00.000Z',
    });
    expect(docs.get(files['deck.pptx']!)?.title).toBe('Welcome');
    // A web page's navigation and footer are not content.
    expect((await engine.search({ query: 'newsletter', mode: 'lexical' })).results).toEqual([]);
  });

  it('filters by each new type', async () => {
    for (const [type, path] of [
      ['docx', 'report.docx'],
      ['slides', 'deck.pptx'],
      ['epub', 'book.epub'],
      ['sheet', 'cities.csv'],
      ['html', 'engines.html'],
      ['mail', 'lunch.eml'],
    ] as const) {
      const r = await engine.search({ query: 'the', mode: 'lexical', type, top: 50 });
      expect(
        r.results.every((h) => h.source.type === type),
        type,
      ).toBe(true);
      expect(r.results.some((h) => h.citation.path === files[path]) || type === 'sheet' || type === 'mail', type).toBe(true);
    }
    const cli = kb(['search', 'zeppelin', '--type', 'docx', '--json', '--data-dir', join(dir, 'data')]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout).results[0].citation.label).toMatch(/report\.docx · ¶ \d+/);
  });

  it('renders each for the viewer, the cited blocks marked, with nothing that runs or loads', async () => {
    const id = async (file: string): Promise<string> => (await engine.list()).find((d) => d.path === files[file])!.doc_id;
    const docx = await engine.view(await id('report.docx'), 'para=5');
    expect(docx.html).toMatch(/<div id="kb-hit" class="hit"><div class="block" data-unit="5"><p>The zeppelin hangar lease/);
    const slides = await engine.view(await id('deck.pptx'), 'slide=3');
    expect(slides.html).toMatch(/<section class="slide hit" id="kb-hit"><p class="slide-n">Slide 3<\/p>/);
    const rows = await engine.view(await id('budget.xlsx'), 'sheet=Costs&row=3');
    expect(rows.html).toMatch(/<tr id="kb-hit" class="hit"><td class="n">3<\/td><td>Quokka food<\/td>/);
    const book = await engine.view(await id('book.epub'), 'epubcfi(/6/4[ch2]!/4/2/6)');
    expect(book.html).toMatch(/id="kb-hit"[^]*The lighthouse keeper lit the lamp/);
    expect(book.html).toMatch(/<a href="view\?at=epubcfi/); // the other chapters, to move around
    // The query's words are marked, as in the hit's snippet; a query is text, never markup.
    expect((await engine.view(await id('report.docx'), 'para=5', 'zeppelin hang')).html).toContain(
      '<mark>zeppelin</mark> <mark>hangar</mark>',
    );
    expect((await engine.view(await id('budget.xlsx'), 'sheet=Costs&row=3', 'quokka')).html).toContain('<td><mark>Quokka</mark> food</td>');
    const odd = (await engine.view(await id('report.docx'), 'para=5', '<img src=x onerror=alert(1)> amp lt')).html;
    expect(odd).not.toMatch(/<img|onerror|&<mark>/);
    const mail = await engine.view(await id('inbox.mbox'), 'msg=m2%40x.org');
    expect(mail.html).toMatch(/<b>Subject<\/b> Seals/);
    expect(mail.html).not.toMatch(/pelicans/);
  });
});

// Word files made by Word itself: mammoth's own test documents, when the installed package ships them.
const MAMMOTH_DOCS = join(repoRoot, 'node_modules/mammoth/test/test-data');
const haveWordFiles = existsSync(join(MAMMOTH_DOCS, 'tables.docx'));
if (!haveWordFiles) console.warn('real Word files skipped: mammoth ships no test documents in this install');

describe.skipIf(!haveWordFiles)('Word files made by Word', () => {
  it('reads every one, numbering paragraphs, lists and tables as Word does', async () => {
    const d = await tempDir('kb-word-');
    const e = await engineIn(join(d, 'data'));
    const s = await e.ingest(
      readdirSync(MAMMOTH_DOCS)
        .filter((n) => n.endsWith('.docx'))
        .map((n) => join(MAMMOTH_DOCS, n)),
    );
    expect(s.added).toBeGreaterThan(15);
    expect(s.errors.map((x) => `${x.path.split('/').pop()}: ${x.code}`)).toEqual([]);
    const doc = (name: string): string => join(MAMMOTH_DOCS, name);
    expect((await e.get(`${doc('tables.docx')}#para=2`)).text).toBe('Top left | Top right\nBottom left | Bottom right');
    expect((await e.get(`${doc('tables.docx')}#para=3`)).text).toBe('Below');
    expect((await e.get(`${doc('simple-list.docx')}#para=2`)).text).toBe('Banana');
    // Footnotes are read without mammoth's back-link arrows.
    expect((await e.get(doc('footnotes.docx'))).text).toContain('A tachyon walks into a bar.');
    expect((await e.get(doc('footnotes.docx'))).text).not.toContain('↑');
    const hit = (await e.search({ query: 'tachyon', mode: 'lexical' })).results[0];
    expect(hit?.citation.label).toMatch(/^(foot|end)notes\.docx · ¶/);
    e.close();
  });
});

describe('zip limits set from real files', () => {
  it('opens a sheet that compresses as well as real ones do (up to ~300×), and refuses a bomb (~1,000×)', async () => {
    const { openZip, zipLimitsOf } = await import('../src/worker/ingest/formats/zip.js');
    const { ConfigSchema } = await import('../src/shared/config.js');
    const limits = zipLimitsOf(ConfigSchema.parse({}).ingest);
    // Rows of styled empty cells with a value now and then: the shape of a sparse real sheet.
    let x = 7;
    const rows: string[] = [];
    for (let r = 1; r <= 200_000; r++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      rows.push(r % 200 === 0 ? `<row><c s="3"><v>${x % 1000}</v></c></row>` : '<row><c s="1"/><c s="2"/></row>');
    }
    const sheet = new JSZip();
    sheet.file('xl/worksheets/sheet1.xml', `<worksheet><sheetData>${rows.join('')}</sheetData></worksheet>`);
    const sparse = await sheet.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    const ratio = 6_200_000 / sparse.length;
    expect(ratio).toBeGreaterThan(250); // more than twice what the old limit (100×) let through
    await expect(openZip(sparse, limits, 'an Excel workbook')).resolves.toBeDefined();
    const bomb = new JSZip();
    bomb.file('xl/worksheets/sheet1.xml', new Uint8Array(16 * 1024 * 1024));
    await expect(
      openZip(await bomb.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }), limits, 'an Excel workbook'),
    ).rejects.toMatchObject({ code: 'TOO_LARGE' });
    // Many entries each under the ratio still meet the bound on the whole.
    await expect(openZip(sparse, { ...limits, max_expanded_bytes: 1_000_000 }, 'an Excel workbook')).rejects.toMatchObject({
      code: 'TOO_LARGE',
    });
  });
});

describe('an e-book’s chapters', () => {
  it('are numbered as a reader counts them: the title page and contents are not chapters', async () => {
    const d = await tempDir();
    const book = await F.epub([
      { title: 'Title Page', paras: ['Sea Tales, by Herman M'] },
      { title: 'Contents', paras: ['Beginnings', 'The Storm', 'The Calm'] },
      { title: 'Beginnings', paras: [F.filler(4, 1)] },
      { title: 'The Storm', paras: [F.filler(4, 2)] },
      { title: 'The Calm', paras: ['The albatross circled the mast at dawn.'] },
    ]);
    writeFileSync(join(d, 'tales.epub'), book);
    const e = await engineIn(join(d, 'data'));
    await e.ingest([join(d, 'tales.epub')]);
    const hit = (await e.search({ query: 'albatross', mode: 'lexical' })).results[0]!;
    expect(hit.citation.label).toMatch(/^tales\.epub · ch\. 3\b/);
    expect(hit.citation.uri).toMatch(/#epubcfi\(\/6\/10\[/);
  });
});

describe('a web page’s text fragments', () => {
  it('begin and end on whole words, as browsers match them, and carry the words around them where their own repeat', async () => {
    const long = Array.from({ length: 400 }, (_, i) => `sentence${i} tells the committee about harbour dredging plans`).join(' ');
    // Two long paragraphs (a chunk each) that open with the same words.
    const twice = (tail: string): string => `The harbour report was read aloud ${F.filler(12, tail.length)} ${tail}`;
    const [p1, p2] = [twice('first by the chair'), twice('again by the clerk')];
    const page = `<!doctype html><html><head><title>Minutes</title></head><body><main><h1>Minutes</h1><p>${long}</p><p>${p1}</p><p>${p2}</p></main></body></html>`;
    const d = await tempDir();
    writeFileSync(join(d, 'minutes.html'), page);
    const e = await engineIn(join(d, 'data'));
    await e.ingest([join(d, 'minutes.html')]);
    const doc = await e.inspectDoc(join(d, 'minutes.html'));
    expect(doc.chunks.length).toBeGreaterThan(2);
    const words = new Set(`Minutes ${long} ${p1} ${p2}`.split(/\s+/));
    for (const c of doc.chunks) {
      const a = c.anchor as { kind: string; start: string; end?: string; prefix?: string };
      expect(a.kind).toBe('text');
      // Every word quoted is a whole word of the page: a cut word ("to" of "told") matches nothing.
      for (const w of [...a.start.split(' '), ...(a.end ?? '').split(' ').filter(Boolean)])
        expect(words.has(w), `${w} in ${JSON.stringify(a)}`).toBe(true);
      // A browser matches each term inside one block: never from the heading into the paragraph.
      const blocks = ['Minutes', long, p1, p2];
      for (const term of [a.start, a.end].filter((x): x is string => !!x))
        expect(
          blocks.some((b) => b.includes(term)),
          `${term} within one block`,
        ).toBe(true);
      // And kb get on the citation gives back a text holding the chunk's own first words.
      const uri = makeCitation(join(d, 'minutes.html'), c.anchor as Anchor).uri;
      expect((await e.get(uri, 100_000)).text).toContain(a.start);
    }
    // A passage from a heading into its paragraphs: each term is quoted from one block (a browser
    // matches nothing across the <h1> and the <p>), the start from the first, the end from the last.
    writeFileSync(
      join(d, 'recipe.html'),
      '<!doctype html><html><head><title>Recipe</title></head><body><main><h1>Saffron Risotto</h1><p>Toast the arborio rice in butter, then add the saffron threads.</p><p>Stir for twenty minutes.</p></main></body></html>',
    );
    await e.ingest([join(d, 'recipe.html')]);
    const recipe = (await e.inspectDoc(join(d, 'recipe.html'))).chunks[0]!.anchor;
    expect(recipe).toEqual({ kind: 'text', start: 'Saffron Risotto', end: 'Stir for twenty minutes.' });
    // "The harbour report was read aloud" opens both: the second passage's fragment names what precedes
    // it (the first one's last words), and kb get follows it to the second paragraph, not the first.
    const second = (await e.search({ query: '"again by the clerk"', mode: 'lexical' })).results[0]!;
    expect(second.citation.uri).toMatch(/#:~:text=by%20the%20chair-,The%20harbour/);
    expect((await e.get(second.citation.uri, 100_000)).text).toContain('again by the clerk');
    expect((await e.get(second.citation.uri, 100_000)).text).not.toContain('first by the chair');
  });
});

describe('text as presentation programs store it', () => {
  const A =
    'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
  const rels = (x: [string, string, string][]): string =>
    `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${x.map(([i, t, g]) => `<Relationship Id="${i}" Type="${t}" Target="${g}"/>`).join('')}</Relationships>`;
  const ODF =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:xlink="http://www.w3.org/1999/xlink"';

  it('reads runs joined by a line break, a tab or a soft return as the words they are (PowerPoint)', async () => {
    const z = new JSZip();
    z.file(
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>',
    );
    z.file('_rels/.rels', rels([['rId1', `${REL}/officeDocument`, 'ppt/presentation.xml']]));
    z.file(
      'ppt/presentation.xml',
      `<?xml version="1.0"?><p:presentation ${A}><p:sldIdLst><p:sldId id="256" r:id="rId1"/></p:sldIdLst></p:presentation>`,
    );
    z.file('ppt/_rels/presentation.xml.rels', rels([['rId1', `${REL}/slide`, 'slides/slide1.xml']]));
    const paras = [
      '<a:r><a:t>Provider</a:t></a:r><a:br/><a:r><a:t>Available now</a:t></a:r>',
      '<a:r><a:t>Quality\tAssurance team</a:t></a:r>',
      '<a:r><a:t>Soft</a:t></a:r><a:r><a:t>_x000B_Return here</a:t></a:r>',
    ];
    z.file(
      'ppt/slides/slide1.xml',
      `<?xml version="1.0"?><p:sld ${A}><p:cSld><p:spTree><p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:txBody>${paras.map((p) => `<a:p>${p}</a:p>`).join('')}</p:txBody></p:sp></p:spTree></p:cSld></p:sld>`,
    );
    const d = await tempDir();
    writeFileSync(join(d, 'deck.pptx'), await z.generateAsync({ type: 'uint8array' }));
    const e = await engineIn(join(d, 'data'));
    await e.ingest([join(d, 'deck.pptx')]);
    for (const q of ['"Provider Available"', '"Quality Assurance"', '"Soft Return"'])
      expect((await e.search({ query: q, mode: 'lexical' })).results[0]?.citation, q).toMatchObject({ kind: 'slide', slide: 1 });
    const text = (await e.get(`${join(d, 'deck.pptx')}#slide=1`, 2000)).text;
    expect(text).toContain('Provider\nAvailable now\nQuality Assurance team\nSoft\nReturn here');
    expect(text).not.toMatch(/ {2}|_x000B_|\u000b/);
  });

  it('reads a slide’s table, drawn or embedded as an object (OpenOffice Impress)', async () => {
    const o = new JSZip();
    o.file('mimetype', 'application/vnd.oasis.opendocument.presentation', { compression: 'STORE' });
    const drawn =
      '<draw:frame><table:table><table:table-row><table:table-cell><text:p>Marmalade</text:p></table:table-cell><table:table-cell><text:p>Quince<text:line-break/>jelly<text:tab/>pot</text:p></table:table-cell></table:table-row></table:table></draw:frame>';
    const embedded = '<draw:frame><draw:object xlink:href="./Object 1" xlink:type="simple"/></draw:frame>';
    o.file(
      'content.xml',
      `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF}><office:body><office:presentation><draw:page draw:name="p1">${drawn}</draw:page><draw:page draw:name="p2">${embedded}</draw:page></office:presentation></office:body></office:document-content>`,
    );
    o.file(
      'Object 1/content.xml',
      `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF}><office:body><office:spreadsheet><table:table table:name="Sheet1"><table:table-row><table:table-cell><text:p>Harbour</text:p></table:table-cell><table:table-cell><text:p>Lighthouse keepers</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`,
    );
    o.file(
      'META-INF/manifest.xml',
      '<?xml version="1.0"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    );
    const d = await tempDir();
    writeFileSync(join(d, 'deck.odp'), await o.generateAsync({ type: 'uint8array' }));
    const e = await engineIn(join(d, 'data'));
    await e.ingest([join(d, 'deck.odp')]);
    expect((await e.list())[0]!.chunks).toBeGreaterThan(0);
    expect((await e.search({ query: '"quince jelly pot"', mode: 'lexical' })).results[0]?.citation).toMatchObject({
      kind: 'slide',
      slide: 1,
    });
    expect((await e.search({ query: '"lighthouse keepers"', mode: 'lexical' })).results[0]?.citation).toMatchObject({
      kind: 'slide',
      slide: 2,
    });
    expect((await e.get(`${join(d, 'deck.odp')}#slide=2`, 2000)).text).toMatch(/Harbour \| Lighthouse keepers/);
  });
});

describe('a saved web page', () => {
  it('is read without the scripts, styles and pictures its browser saved beside it', async () => {
    const top = await tempDir('kb-saved-');
    const d = join(top, 'web');
    await writeTree(d, {
      'Otters - Wikipedia.html': F.html({ title: 'Otters', sections: [{ heading: 'Diet', paras: ['Otters eat fish, crabs and frogs.'] }] }),
      'Otters - Wikipedia_files/app.js': 'function otterTracker(){return "otters eat fish"}\n',
      'Otters - Wikipedia_files/site.css': '.otters { color: brown }\n',
      'scripts_files/tool.js': 'export const otters = 1;\n', // no scripts.html beside it: an ordinary folder
    });
    const e = await engineIn(join(top, 'data'));
    const s = await e.ingest([d]);
    expect(s.skipped).toEqual([
      { path: join(d, 'Otters - Wikipedia_files'), reason: 'the pictures, styles and scripts of the saved page Otters - Wikipedia.html' },
    ]);
    expect((await e.list()).map((x) => x.path.slice(d.length + 1)).sort()).toEqual(['Otters - Wikipedia.html', 'scripts_files/tool.js']);
    e.close();
  });
});

describe('an index from before these formats', () => {
  it('reads its CSV and HTML files again, as tables and pages, at the next reconcile', async () => {
    const d = await tempDir('kb-upgrade-');
    const docs = join(d, 'docs');
    const data = join(d, 'data');
    const { mkdirSync, statSync } = await import('node:fs');
    mkdirSync(docs);
    mkdirSync(data);
    const csv = join(docs, 'birds.csv');
    writeFileSync(csv, 'bird,seen\nheron,3\nkingfisher,1\n');
    // The index as kb left it before migration 8: the CSV a plain note, its stamp current.
    const raw = new Database(join(data, 'kb.sqlite'));
    for (const m of MIGRATIONS.filter((x) => x.version <= 7)) raw.exec(m.sql);
    raw.pragma('user_version = 7');
    const st = statSync(csv);
    raw
      .prepare(
        `INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration, parser_version, status, error, original, added_at, updated_at)
      VALUES ('aaaaaaaaaaaaaaaaaaaa', ?, ?, 'birds.csv', 'note', NULL, 'x', ?, ?, NULL, NULL, 2, 'indexed', NULL, 'reference', 0, 0)`,
      )
      .run(csv, docs, st.size, Math.floor(st.mtimeMs));
    raw.prepare("INSERT INTO collections (name, root, tags, glob, added_at) VALUES ('docs', ?, '[]', NULL, 0)").run(docs);
    raw.close();
    const e = await engineIn(data);
    await e.reconcileCollections();
    const doc = (await e.list()).find((x) => x.path === csv);
    expect(doc?.type).toBe('sheet');
    expect((await e.search({ query: 'kingfisher', mode: 'lexical' })).results[0]?.citation.uri).toMatch(/birds\.csv#row=2-3$/);
  });
});

describe('hostile and broken files', () => {
  it('sanitises a hostile page: no script, no handler, no remote load survives', async () => {
    const d = await tempDir('kb-hostile-');
    const page = join(d, 'evil.html');
    writeFileSync(
      page,
      F.html({
        title: 'Evil',
        sections: [{ heading: 'Body', paras: ['Ordinary words about otters.', F.filler(4)] }],
        hostile: true,
      }).replace(
        '</article>',
        '<a href="javascript:alert(1)">x</a><iframe src="http://127.0.0.1:9/"></iframe><svg onload="alert(1)"></svg><style>body{background:url(http://127.0.0.1:9/x)}</style></article>',
      ),
    );
    const e = await engineIn(join(d, 'data'));
    await e.ingest([page]);
    const doc = (await e.list())[0]!;
    const v = await e.view(doc.doc_id, 'para=1'.replace('para=1', ':~:text=Ordinary%20words'));
    expect(v.html).toContain('Ordinary words about otters.');
    // The one script left is kb's own key forwarder, which the rendition's CSP names by its hash.
    expect(v.html.split('<script').length - 1).toBe(1);
    const body = v.html.replace(`<script>${VIEW_KEYS_SCRIPT}</script>`, '');
    for (const bad of ['<script', 'onerror', 'onload', 'javascript:', '127.0.0.1', '<iframe', '<svg', 'url('])
      expect(body, bad).not.toContain(bad);
    // A message whose only body is hostile HTML is shown as its text.
    const mail = join(d, 'evil.eml');
    writeFileSync(
      mail,
      F.eml({
        from: 'x@y.org',
        to: 'z@y.org',
        subject: 'Invoice',
        date: 'Tue, 1 Oct 2024 10:00:00 +0000',
        id: 'evil@y.org',
        body: '',
        html: '<p>Pay the invoice for otters.</p><script>alert(1)</script><img src="http://127.0.0.1:9/t.png" onerror="alert(2)">',
      }).replace(/--b1\r\nContent-Type: text\/plain[^]*?(?=--b1)/, ''),
    );
    await e.ingest([mail]);
    const m = await e.view((await e.list()).find((x) => x.path === mail)!.doc_id, 'msg=evil%40y.org');
    expect(m.html).toContain('Pay the invoice for otters.');
    const mailBody = m.html.replace(`<script>${VIEW_KEYS_SCRIPT}</script>`, '');
    for (const bad of ['<script', 'alert(', 'onerror', '127.0.0.1', '<img']) expect(mailBody, bad).not.toContain(bad);
    e.close();
  });

  it('fails each bad file alone with its code and keeps what was indexed', async () => {
    const d = await tempDir('kb-badfmt-');
    const e = await engineIn(join(d, 'data'));
    const good = join(d, 'good.docx');
    writeFileSync(good, await F.docx([{ text: 'The marmot survey found forty burrows.' }]));
    expect((await e.ingest([good])).added).toBe(1);

    const bombZip = new JSZip();
    bombZip.file('[Content_Types].xml', '<Types/>');
    bombZip.file('word/document.xml', new Uint8Array(8 * 1024 * 1024)); // 8 MB of zeros: ~1000× compression
    const bomb = await bombZip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' });
    const ole = new Uint8Array(4096);
    ole.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const bad: Record<string, Uint8Array | string> = {
      'locked.docx': ole,
      'locked.xlsx': ole,
      'locked.odt': await F.odt([{ text: 'secret' }], {}, { encrypted: true }),
      'broken.docx': new TextEncoder().encode('this is not a zip at all, just text pretending'),
      'broken.pptx': (await F.pptx([{ title: 'x', body: ['y'] }])).slice(0, 200),
      'broken.epub': new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1, 2, 3, 4, 5, 6, 7, 8]),
      'broken.xlsx': (await F.xlsx([{ name: 'S', rows: [['a'], ['b']] }])).slice(0, 300),
      'bomb.docx': bomb,
      'empty.csv': '',
      'nothing.mbox': 'no messages here\njust text\n',
      'notword.docx': await F.epub([{ title: 't', paras: ['p'] }]),
    };
    for (const [name, bytes] of Object.entries(bad)) writeFileSync(join(d, name), bytes);
    writeFileSync(join(d, 'old.doc'), ole);
    writeFileSync(join(d, 'letter.rtf'), '{\\rtf1\\ansi Hello}');
    const s = await e.ingest([...Object.keys(bad), 'old.doc', 'letter.rtf'].map((n) => join(d, n)));
    // Formats kb does not read say what to save them as.
    expect(Object.fromEntries(s.skipped.map((x) => [x.path.split('/').pop(), x.reason]))).toEqual({
      'old.doc': expect.stringMatching(/old binary Word document.*\.docx/),
      'letter.rtf': expect.stringMatching(/RTF.*\.docx/),
    });
    const codes = Object.fromEntries(s.errors.map((x) => [x.path.split('/').pop(), x.code]));
    expect(codes).toEqual({
      'locked.docx': 'ENCRYPTED',
      'locked.xlsx': 'ENCRYPTED',
      'locked.odt': 'ENCRYPTED',
      'broken.docx': 'PARSE_FAILED',
      'broken.pptx': 'PARSE_FAILED',
      'broken.epub': 'PARSE_FAILED',
      'broken.xlsx': 'PARSE_FAILED',
      'bomb.docx': 'TOO_LARGE',
      'empty.csv': 'EMPTY',
      'nothing.mbox': 'PARSE_FAILED',
      'notword.docx': 'PARSE_FAILED',
    });
    expect(s.errors.find((x) => x.code === 'TOO_LARGE')?.message).toMatch(/zip bomb/);
    const hits = await e.search({ query: 'marmot', mode: 'lexical' });
    expect(hits.results.map((h) => h.citation.path)).toEqual([good]);

    // A good file replaced by a broken one: the error is said, the version indexed before stays found.
    writeFileSync(good, (await F.docx([{ text: 'whatever' }])).slice(0, 100));
    const again = await e.ingest([good]);
    expect(again.errors.map((x) => x.code)).toEqual(['PARSE_FAILED']);
    expect((await e.search({ query: 'marmot', mode: 'lexical' })).results.map((h) => h.citation.path)).toEqual([good]);

    // A macro-enabled file is read as text: its macros are a part nothing opens.
    const macro = await JSZip.loadAsync(await F.docx([{ text: 'The ibex count rose.' }]));
    macro.file('word/vbaProject.bin', new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 1, 2, 3]));
    writeFileSync(join(d, 'macro.docm'), await macro.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }));
    expect((await e.ingest([join(d, 'macro.docm')])).added).toBe(1);
    expect((await e.search({ query: 'ibex', mode: 'lexical' })).results[0]?.citation.uri).toMatch(/macro\.docm#para=1$/);
    expect((await e.get(`${good}#para=1`)).text).toBe('The marmot survey found forty burrows.');
    e.close();
  });
});
