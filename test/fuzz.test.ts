// Fuzzing (a slice of `npm run bench -- fuzz`, which runs the full 100,000 queries and 2,000 files):
// adversarial queries never crash, never leak an SQL error, and always give a valid result or a clear
// QUERY_INVALID; mutated PDFs, Markdown, code and images are each indexed or refused on their own,
// and nothing indexed before is lost.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as F from './support/format-fixtures.js';
import { Rng, fuzzFiles, fuzzQuery } from './support/fuzz.js';
import { SearchResultSchema } from '../src/shared/wire.js';
import { isKbError } from '../src/shared/errors.js';
import { corporaDir, engineIn, repoRoot, tempDir, writeTree } from './helpers.js';

describe('fuzz', () => {
  it('5,000 adversarial queries: a valid result or a clear QUERY_INVALID, never an SQL error or a crash', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'a.md': '# Install\n\nInstall git with apt-get. Boundary layer flow.\n',
      'b.md': '# 한국어\n\n한국어 검색 테스트 중문 中文搜索\n',
    });
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([dir]);
    const r = new Rng(42);
    let invalid = 0;
    let found = 0;
    for (let i = 0; i < 5000; i++) {
      const query = fuzzQuery(r);
      try {
        const res = await engine.search({ query, mode: 'lexical', prefix: i % 2 === 0, top: 5 });
        SearchResultSchema.parse(JSON.parse(JSON.stringify(res)));
        if (res.results.length > 0) found++;
      } catch (e) {
        if (!isKbError(e) || !['QUERY_INVALID', 'INVALID_ARGUMENT'].includes(e.code))
          throw new Error(`query ${JSON.stringify(query).slice(0, 200)} threw ${(e as Error).stack}`);
        expect(e.message).not.toMatch(/SQLITE|sqlite3|fts5: syntax|no such column/i);
        invalid++;
      }
    }
    // Seeded, so the mix is fixed: about a third find a document, a few are malformed raw FTS5
    // expressions. A search path that errs on everything, or finds nothing, fails here.
    expect(found).toBeGreaterThan(1000);
    expect(invalid).toBeGreaterThan(0);
    expect(invalid).toBeLessThan(100);
  }, 120_000);

  it.skipIf(!corporaDir())(
    '200 mutated files: each indexed or refused with its own error; what was indexed before stays',
    async () => {
      const dir = await tempDir();
      await writeTree(dir, { 'keep/sentinel.md': '# Sentinel\n\nthe albatross must survive\n' });
      const c = corporaDir()!;
      const seeds = [
        join(c, 'pdf/py-pdf-sample-files/001-trivial/minimal-document.pdf'),
        join(c, 'pdf/py-pdf-sample-files/004-pdflatex-4-pages/pdflatex-4-pages.pdf'),
        join(c, 'images/tesseract.js/simple.png'),
        join(repoRoot, 'README.md'),
        join(repoRoot, 'src/shared/citation.ts'),
      ];
      const files = fuzzFiles(join(dir, 'fuzz'), seeds, 200, new Rng(9));
      const engine = await engineIn(join(dir, 'data'));
      await engine.ingest([join(dir, 'keep')]);
      const s = await engine.ingest([join(dir, 'fuzz')]);
      expect(s.added + s.updated + s.unchanged + s.moved + s.failed + s.skipped.length).toBe(files.length);
      expect((await engine.search({ query: 'albatross', mode: 'lexical' })).results[0]?.citation.path).toBe(join(dir, 'keep/sentinel.md'));
      const doctor = await engine.doctor();
      expect(doctor.checks.filter((x) => x.status === 'fail')).toEqual([]);
    },
    180_000,
  );

  it('300 mutated Word, slide, book, workbook, page, table and mail files: each indexed or refused as damaged; what was indexed before stays', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'keep/sentinel.md': '# Sentinel\n\nthe albatross must survive\n' });
    const seeds = join(dir, 'seeds');
    await writeTree(seeds, {
      'r.docx': await F.docx(
        [
          { text: 'Title', heading: 1 },
          { text: 'Body text of the report.' },
          {
            text: '',
            table: [
              ['a', 'b'],
              ['1', '2'],
            ],
          },
        ],
        { title: 'R', author: 'A' },
      ),
      'n.odt': await F.odt([{ text: 'Notes', heading: 1 }, { text: 'A paragraph.' }]),
      'd.pptx': await F.pptx([
        { title: 'One', body: ['x'], notes: 'n' },
        { title: 'Two', body: ['y'] },
      ]),
      'b.epub': await F.epub(
        [
          { title: 'C1', paras: ['p1', 'p2'] },
          { title: 'C2', paras: ['p3'] },
        ],
        { title: 'B' },
      ),
      's.xlsx': await F.xlsx([
        {
          name: 'S',
          rows: [
            ['h1', 'h2'],
            ['v1', 2],
          ],
        },
      ]),
      'p.html': F.html({ title: 'P', sections: [{ heading: 'H', paras: ['words here'] }] }),
      'c.csv': 'a,b\n"quoted, cell",2\n3,4\n',
      'm.eml': F.eml({
        from: 'a@x.org',
        to: 'b@x.org',
        subject: 'S',
        date: 'Tue, 1 Oct 2024 10:00:00 +0000',
        id: 'i@x.org',
        body: 'body',
        attachments: [{ name: 'a.docx', type: 'application/octet-stream', content: await F.docx([{ text: 'attached' }]) }],
      }),
      'x.mbox': F.mbox([
        F.eml({ from: 'a@x.org', to: 'b@x.org', subject: 'S', date: 'Tue, 1 Oct 2024 10:00:00 +0000', id: 'j@x.org', body: 'one' }),
      ]),
    });
    const names = ['r.docx', 'n.odt', 'd.pptx', 'b.epub', 's.xlsx', 'p.html', 'c.csv', 'm.eml', 'x.mbox'];
    const files = fuzzFiles(
      join(dir, 'fuzz'),
      names.map((n) => join(seeds, n)),
      300,
      new Rng(19),
    );
    const engine = await engineIn(join(dir, 'data'));
    await engine.ingest([join(dir, 'keep')]);
    const s = await engine.ingest([join(dir, 'fuzz')]);
    expect(s.added + s.failed + s.skipped.length).toBe(files.length);
    // Seeded: a mix of files still readable and files refused (about 110 and 190).
    expect(s.added).toBeGreaterThan(50);
    expect(s.failed).toBeGreaterThan(50);
    // Damage is said as such (or as the file being empty, encrypted or too big), never as kb's own fault.
    expect(
      s.errors.filter((e) => !['PARSE_FAILED', 'EMPTY', 'ENCRYPTED', 'TOO_LARGE', 'INVALID_ENCODING', 'NOT_TEXT'].includes(e.code)),
    ).toEqual([]);
    expect((await engine.search({ query: 'albatross', mode: 'lexical' })).results[0]?.citation.path).toBe(join(dir, 'keep/sentinel.md'));
    // Every indexed one opens in the viewer or says why it cannot.
    for (const d of (await engine.list()).filter((x) => x.path.includes('/fuzz/') && x.status === 'indexed').slice(0, 60)) {
      await engine.view(d.doc_id).then(
        (v) => expect(v.html).toMatch(/^<!doctype html>/),
        (e: unknown) => expect(isKbError(e) && ['PARSE_FAILED', 'NOT_FOUND'].includes(e.code)).toBe(true),
      );
    }
  }, 180_000);
});
