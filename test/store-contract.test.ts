// The store port's contract (src/worker/store/port.ts): the same tests run against both adapters —
// SQLite in a temp dir, PostgreSQL on a throwaway cluster (test/support/postgres.ts) — so the engine
// above them can rely on one behaviour, whichever store holds the index.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../src/worker/store/port.js';
import type { NewChunk } from '../src/worker/store/rows.js';
import { openDb } from '../src/worker/store/open-db.js';
import { SqliteStore } from '../src/worker/store/sqlite-store.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PgStore } from '../src/worker/store/postgres/pg-store.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { tempDir } from './helpers.js';
import { docRow } from './support/rows.js';

const pgHere = postgresAvailable();
let cluster: PgCluster | null = null;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  if (pgHere) cluster = await startCluster();
});
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  cluster?.stop();
});

const adapters: { name: string; skip: boolean; open: () => Promise<Store> }[] = [
  {
    name: 'sqlite',
    skip: false,
    open: async () => {
      const file = join(await tempDir(), 'kb.sqlite');
      const db = openDb(file);
      closers.push(() => db.close());
      return new SqliteStore(db, file);
    },
  },
  {
    name: 'postgres',
    skip: !pgHere,
    open: async () => {
      const url = await cluster!.database();
      const pool = await openPool(url);
      await migratePg(pool);
      const store = new PgStore(pool, url);
      closers.push(() => store.close());
      return store;
    },
  },
];

const doc = docRow;

function chunks(docId: string, texts: string[], from = 0): NewChunk[] {
  return texts.map((text, i) => ({
    id: `${docId}-c${from + i}`,
    ordinal: from + i,
    heading: 'Intro',
    text,
    anchor: { kind: 'lines', start: from + i + 1, end: from + i + 2 },
    chunker_version: 3,
  }));
}

describe.each(adapters)('the $name store', ({ skip, open }) => {
  it.skipIf(skip)('writes documents and reads them back by id, path, folder and hash', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('a', '/n/a.md'));
    await t.documents.upsert(doc('b', '/n/sub/b.md', { type: 'pdf', original: 'reference' }));
    await t.documents.upsert(doc('c', '/n0/c.md', { status: 'failed', error: 'PARSE_FAILED: no' }));
    expect(await t.documents.count()).toBe(3);
    expect(await t.documents.byPath('/n/a.md')).toMatchObject({ id: 'a', title: 'Title of a', size: 100, mtime: 1_700_000_000_000 });
    expect(await t.documents.byId('zzz')).toBeUndefined();
    expect(await t.documents.paths()).toEqual(['/n/a.md', '/n/sub/b.md', '/n0/c.md']);
    expect((await t.documents.under('/n/')).map((d) => d.id).sort()).toEqual(['a', 'b']);
    expect(await t.documents.countUnder('/n/')).toBe(2);
    expect(await t.documents.indexedTypes()).toEqual(new Set(['markdown', 'pdf']));
    expect(await t.documents.anyIndexed()).toBe(true);
    expect((await t.documents.indexedWithHash('hash-a')).map((d) => d.id)).toEqual(['a']);
    // Files dropped in a browser, found by their path in the drop; LIKE's own characters are letters there.
    await t.documents.upsert(doc('d1', '/data/uploads/0123456789abcdef/notes/to_do 100%.md'));
    await t.documents.upsert(doc('d2', '/data/uploads/fedcba9876543210/notes/to_do 100%.md'));
    await t.documents.upsert(doc('d3', '/data/uploads/fedcba9876543210/notes/toXdo 100%.md'));
    expect((await t.documents.droppedAs('notes/to_do 100%.md')).map((d) => d.id).sort()).toEqual(['d1', 'd2']);
    expect(await t.documents.droppedAs('to_do 100%.md')).toEqual([]);
    expect(await t.documents.droppedAs('a.md')).toEqual([]);
    for (const id of ['d1', 'd2', 'd3']) await t.documents.delete(id);
    // a and c are copies of 100 bytes each, each taking a 4 KiB block on disk
    expect(await t.documents.storedBytes()).toBe(2 * 4096);

    await t.documents.setMeta('a', { title: 'Renamed', lang: 'de', page_count: null });
    await t.documents.move('a', '/m/a.md', '/m', 5);
    await t.documents.setDuration('b', 12.5);
    await t.documents.setError('b', 'waiting: something');
    expect(await t.documents.byId('a')).toMatchObject({ title: 'Renamed', lang: 'de', path: '/m/a.md', root: '/m', mtime: 5 });
    expect(await t.documents.byId('b')).toMatchObject({ duration: 12.5, error: 'waiting: something' });
    // The ones that may be failed or waiting, with their facts: c failed, b says an error.
    expect((await t.documents.unsettled()).map((d) => d.id).sort()).toEqual(['b', 'c']);
  });

  it.skipIf(skip)('keeps a document’s chunks in order and deletes them, its tags’ links and its original with it', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('a', '/n/a.md'));
    await t.tags.add('a', ['work', 'alpha']);
    await t.chunks.replace('a', chunks('a', ['first words here', 'second passage about zebras']));
    await t.chunks.insert('a', chunks('a', ['third, added later'], 2));
    await t.originals.set({ doc_id: 'a', mode: 'copy', blob: 'sha-a', sha256: 'sha-a' });
    const cs = await t.chunks.ofDoc('a');
    expect(cs.map((c) => [c.ordinal, c.text])).toEqual([
      [0, 'first words here'],
      [1, 'second passage about zebras'],
      [2, 'third, added later'],
    ]);
    expect(JSON.parse(cs[1]!.anchor)).toEqual({ kind: 'lines', start: 2, end: 3 });
    expect(await t.chunks.byId('a-c1')).toMatchObject({ doc_id: 'a', heading: 'Intro', chunker_version: 3 });
    expect(await t.chunks.count('a')).toBe(3);
    expect(await t.chunks.nextOrdinal('a')).toBe(3);
    expect(await t.chunks.nextOrdinal('nobody')).toBe(0);
    // Rowids grow: "the chunks written since" is a range.
    expect(cs[2]!.rowid).toBeGreaterThan(cs[1]!.rowid);
    await t.chunks.refreshWords('a');
    expect((await t.chunks.ofDoc('a')).map((c) => c.id)).toEqual(['a-c0', 'a-c1', 'a-c2']);

    await t.chunks.replace('a', chunks('a', ['only this now']));
    expect((await t.chunks.ofDoc('a')).map((c) => c.text)).toEqual(['only this now']);

    // What the Library says of each document's passages, and sorts by, follows every write.
    await t.documents.upsert(doc('p', '/n/p.md'));
    await t.chunks.replace('p', chunks('p', ['one', 'two']));
    await t.chunks.insert('p', chunks('p', ['three'], 2));
    const byPassages = async (): Promise<[string, number][]> =>
      (
        await t.library.page({
          sort: 'chunks',
          down: true,
          text: null,
          only: null,
          failed: [],
          waiting: [],
          limit: 10,
          offset: 0,
          after: null,
        })
      ).rows.map((d) => [d.id, d.chunk_count]);
    expect(await byPassages()).toEqual([
      ['p', 3],
      ['a', 1],
    ]);
    // A filter's page and its count, also for a page past the end.
    const filtered = (offset: number) =>
      t.library.page({ sort: 'chunks', down: false, text: 'P.MD', only: null, failed: [], waiting: [], limit: 10, offset, after: null });
    expect(await filtered(0)).toMatchObject({ rows: [{ id: 'p' }], total: 1 });
    expect(await filtered(5)).toEqual({ rows: [], total: 1 });
    await t.chunks.replace('p', []);
    expect(await byPassages()).toEqual([
      ['a', 1],
      ['p', 0],
    ]);
    await t.documents.delete('p');

    await t.documents.upsert(doc('b', '/n/b.md'));
    await t.tags.add('b', ['work']);
    // A page of documents' tags in one question, each document's in name order.
    expect(await t.tags.ofMany(['a', 'b', 'p', 'nobody'])).toEqual(
      new Map([
        ['a', ['alpha', 'work']],
        ['b', ['work']],
      ]),
    );
    await t.documents.delete('a');
    expect(await t.chunks.count('a')).toBe(0);
    expect(await t.originals.of('a')).toBeUndefined();
    expect(await t.tags.of('a')).toEqual([]);
    // A tag no document carries any more is gone; one still carried stays.
    expect(await t.tags.id('alpha')).toBeUndefined();
    expect(await t.tags.id('work')).toBeTypeOf('number');
  });

  it.skipIf(skip)('tags documents once, counts indexed documents per tag, and finds those carrying all of some', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('a', '/a.md'));
    await t.documents.upsert(doc('b', '/b.md'));
    await t.documents.upsert(doc('f', '/f.md', { status: 'failed' }));
    expect(await t.tags.add('a', ['work', 'x'])).toBe(2);
    expect(await t.tags.add('a', ['work', 'y'])).toBe(1);
    await t.tags.add('b', ['work']);
    await t.tags.add('f', ['x', 'work']);
    expect(await t.tags.of('a')).toEqual(['work', 'x', 'y']);
    expect(await t.tags.counts()).toEqual([
      { name: 'work', documents: 2 },
      { name: 'x', documents: 1 },
      { name: 'y', documents: 1 },
    ]);
    expect(await t.tags.docsWithAll(['work', 'x'])).toEqual(new Set(['a', 'f']));
    expect(await t.tags.docsWithAll([])).toEqual(new Set());
  });

  it.skipIf(skip)('queues OCR pages and transcripts, and says how each went', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('p', '/scan.pdf', { type: 'pdf' }));
    await t.documents.upsert(doc('v', '/talk.mp3', { type: 'audio', error: 'waiting for a speech model' }));
    await t.ocr.queue('p', [2, 5]);
    expect((await t.ocr.pending()).map((j) => [j.doc_id, j.page, j.path, j.type])).toEqual([
      ['p', 2, '/scan.pdf', 'pdf'],
      ['p', 5, '/scan.pdf', 'pdf'],
    ]);
    await t.ocr.finish({ doc_id: 'p', page: 2, status: 'done', confidence: 91.5, error: null });
    await t.ocr.finish({ doc_id: 'p', page: 5, status: 'failed', confidence: 10, error: 'needs jpn', unreadable_with: 'eng' });
    expect(await t.ocr.of('p')).toEqual([
      { page: 2, status: 'done', confidence: 91.5, error: null, unreadable_with: null },
      { page: 5, status: 'failed', confidence: 10, error: 'needs jpn', unreadable_with: 'eng' },
    ]);
    expect(await t.ocr.unreadable()).toEqual({ pages: 1, docs: 1 });
    expect(await t.ocr.retryUnreadable('eng')).toEqual([]); // the same languages would fail the same way
    expect(await t.ocr.retryUnreadable('eng+jpn')).toEqual(['p']);
    expect((await t.ocr.pending()).map((j) => j.page)).toEqual([5]);
    // A pending page is claimed by the process reading it; a page done is no one's to claim.
    expect(await t.ocr.claim('p', 5)).toBe(true);
    expect(await t.ocr.claim('p', 2)).toBe(false);
    await t.ocr.clear('p');
    expect(await t.ocr.of('p')).toEqual([]);

    await t.transcripts.queue('v', 'waiting');
    expect(await t.transcripts.waiting()).toEqual(new Set(['v']));
    expect(await t.transcripts.pending()).toEqual([]);
    await t.transcripts.wake();
    expect((await t.transcripts.pending()).map((j) => [j.doc_id, j.path, j.title])).toEqual([['v', '/talk.mp3', 'Title of v']]);
    expect((await t.documents.byId('v'))?.error).toBeNull(); // it waits for nothing now
    expect(await t.transcripts.claim('v')).toBe(true);
    await t.transcripts.finish({ doc_id: 'v', status: 'done', model: 'tiny', language: 'en', segments: '[]', error: null });
    expect(await t.transcripts.claim('v')).toBe(false);
    expect(await t.transcripts.of('v')).toEqual({ status: 'done', model: 'tiny', language: 'en', segments: '[]', error: null });
  });

  it.skipIf(skip)('restores OCR pages and a transcript as another store recorded them (kb migrate)', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('scan', '/n/scan.pdf', { type: 'pdf' }));
    await t.documents.upsert(doc('talk', '/n/talk.mp3', { type: 'audio' }));
    const pages = [
      { page: 1, status: 'done', confidence: 91.5, error: null, unreadable_with: null },
      { page: 2, status: 'failed', confidence: 12, error: 'OCR_FAILED: too blurred', unreadable_with: 'eng' },
    ];
    await t.ocr.restore('scan', pages);
    expect(await t.ocr.of('scan')).toEqual(pages);
    expect(await t.ocr.pending()).toEqual([]);
    const transcript = {
      status: 'done',
      model: 'whisper-base.en',
      language: 'en',
      segments: '[{"start":0,"end":1,"text":"hi"}]',
      error: null,
    };
    await t.transcripts.restore('talk', transcript);
    expect(await t.transcripts.of('talk')).toEqual(transcript);
    await t.transcripts.restore('talk', { ...transcript, status: 'waiting', segments: null });
    expect(await t.transcripts.waiting()).toEqual(new Set(['talk']));
  });

  it.skipIf(skip)('records why a path failed, keeps originals and collections', async () => {
    const s = await open();
    const t = s.tables;
    await t.errors.record('/x.pdf', 'PARSE_FAILED', 'broken xref');
    await t.errors.record('/x.pdf', 'TOO_LARGE', 'too big');
    expect((await t.errors.of('/x.pdf')).map((e) => e.code)).toEqual(['PARSE_FAILED', 'TOO_LARGE']);
    await t.errors.clear('/x.pdf');
    expect(await t.errors.of('/x.pdf')).toEqual([]);

    await t.documents.upsert(doc('a', '/a.md'));
    await t.documents.upsert(doc('b', '/b.md'));
    await t.originals.set({ doc_id: 'a', mode: 'copy', blob: 'h1', sha256: 'h1' });
    await t.originals.set({ doc_id: 'b', mode: 'reference', blob: null, sha256: 'h2' });
    await t.originals.set({ doc_id: 'a', mode: 'copy', blob: 'h3', sha256: 'h3' });
    expect(await t.originals.of('a')).toEqual({ doc_id: 'a', mode: 'copy', blob: 'h3', sha256: 'h3' });
    expect(await t.originals.liveBlobs()).toEqual(new Set(['h3']));

    await t.collections.add({ name: 'notes', root: '/home/n', tags: ['work'], glob: '*.md', added_at: 7 });
    expect(await t.collections.list()).toEqual([{ name: 'notes', root: '/home/n', tags: ['work'], glob: '*.md', added_at: 7 }]);
    await expect(t.collections.add({ name: 'other', root: '/home/n', tags: [], glob: null, added_at: 8 })).rejects.toThrow();
    expect(await t.collections.forget('notes')).toBe(true);
    expect(await t.collections.forget('notes')).toBe(false);
  });

  it.skipIf(skip)('pages the Library: sorted, filtered by text and status, counted', async () => {
    const s = await open();
    const t = s.tables;
    for (const [id, title] of [
      ['a', 'banana'],
      ['b', 'Apple'],
      ['c', 'cherry'],
      ['d', 'apple pie'],
    ] as const)
      await t.documents.upsert(doc(id, `/lib/${id}.md`, { title }));
    await t.tags.add('c', ['fruit_bowl']);
    const base = { down: false, text: null, only: null, failed: [], waiting: [], limit: 10, offset: 0, after: null } as const;
    const titles = async (q: Partial<Parameters<Store['tables']['library']['page']>[0]>): Promise<string[]> =>
      (await t.library.page({ ...base, sort: 'title', ...q })).rows.map((d) => d.title);
    expect(await titles({})).toEqual(['Apple', 'apple pie', 'banana', 'cherry']);
    expect(await titles({ down: true, limit: 2 })).toEqual(['cherry', 'banana']);
    expect(await titles({ text: 'APPLE' })).toEqual(['Apple', 'apple pie']);
    expect(await titles({ text: 'bowl' })).toEqual(['cherry']); // a tag's words
    expect(await titles({ text: '_' })).toEqual(['cherry']); // LIKE's wildcards are the letters typed
    expect(await titles({ only: 'failed', failed: ['c'] })).toEqual(['cherry']);
    expect(await titles({ only: 'indexed', failed: ['c'], waiting: ['a'] })).toEqual(['Apple', 'apple pie']);
    const page = await t.library.page({ ...base, sort: 'path', limit: 2 });
    expect(page.total).toBe(4);
    expect(page.rows.map((d) => d.id)).toEqual(['a', 'b']);
    const next = await t.library.page({ ...base, sort: 'path', limit: 2, after: '/lib/b.md' });
    expect(next.rows.map((d) => d.id)).toEqual(['c', 'd']);
    expect(page.rows[0]).toMatchObject({ chunk_count: 0, ocr_pending: 0, latest_failed: 0, transcript_status: null });
  });

  it.skipIf(skip)('writes all of a transaction or none of it; a nested write that fails goes alone', async () => {
    const s = await open();
    await expect(
      s.write(async (t) => {
        await t.documents.upsert(doc('a', '/a.md'));
        await t.chunks.replace('a', chunks('a', ['some words']));
        throw new Error('the parser died');
      }),
    ).rejects.toThrow('the parser died');
    expect(await s.tables.documents.byId('a')).toBeUndefined();
    expect(await s.tables.chunks.count('a')).toBe(0);

    await s.write(async (t) => {
      await t.documents.upsert(doc('b', '/b.md'));
      await s
        .write(async (inner) => {
          await inner.documents.upsert(doc('c', '/c.md'));
          throw new Error('only this part');
        })
        .catch(() => undefined);
      await t.chunks.replace('b', chunks('b', ['kept']));
    });
    expect(await s.tables.documents.paths()).toEqual(['/b.md']);
    expect(await s.tables.chunks.count('b')).toBe(1);

    const batch = s.batch(50);
    for (const id of ['d', 'e']) await batch.document((t) => t.documents.upsert(doc(id, `/${id}.md`)));
    await expect(batch.document(() => Promise.reject(new Error('bad file')))).rejects.toThrow('bad file');
    await batch.commit();
    expect(await s.tables.documents.paths()).toEqual(['/b.md', '/d.md', '/e.md']);
  });

  it.skipIf(skip)('holds any text a parser gives, quotes and backslashes and all', async () => {
    const s = await open();
    const t = s.tables;
    await t.documents.upsert(doc('q', "/it's/a\\b.md", { title: "O'Reilly's \\ notes" }));
    const odd = "a 'quoted' word, a back\\slash, naïve café, 東京 and a NUL\u0000 inside";
    await t.chunks.replace('q', chunks('q', [odd]));
    const [c] = await t.chunks.ofDoc('q');
    expect(c!.text.replace('\u0000', '')).toBe(odd.replace('\u0000', ''));
    expect((await t.documents.byPath("/it's/a\\b.md"))?.title).toBe("O'Reilly's \\ notes");
  });
});
