// The upgrade migration 11 leaves in an index that held chunks: the trigram index cut down to the
// chunks written without spaces, the words with an inside collected — a batch at a time, stopped and
// resumed anywhere, searchable all along, and by kb's engine at open when it is small.
import Database from 'better-sqlite3';
import { spawn, spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '../src/worker/store/db.js';
import { openDb } from '../src/worker/store/open-db.js';
import { wordIndexCounts } from '../src/worker/store/integrity.js';
import { defaultConfig } from '../src/shared/config.js';
import { IndexStats } from '../src/worker/search/index-stats.js';
import { ftsOrderUpgrade, upgradeFtsOrder } from '../src/worker/store/upgrades/fts-order.js';
import { packingUpgrade, upgradePacking } from '../src/worker/store/upgrades/packing.js';
import { recordsUpgrade, upgradeRecords } from '../src/worker/store/upgrades/records.js';
import { Chunks } from '../src/worker/store/chunks.js';
import { substringsUpgrade, upgradeSubstrings } from '../src/worker/store/upgrades/substrings.js';
import { WordIndex } from '../src/worker/store/word-index.js';
import { engineIn, repoRoot, tempDir } from './helpers.js';
import { OLD_DOC, schema10At } from './support/old-index.js';

const DOC = OLD_DOC;
const KOREAN = '형태소 분석기는 문장을 나눈다';
const JAPANESE = '東京の電車はいつも混んでいる';

/** The 60 chunks of a small index: two of them CJK, one naming an identifier, the rest plain (and `padding`). */
const sixty =
  (padding = '') =>
  (i: number): string =>
    i === 17 ? KOREAN : i === 41 ? JAPANESE : i === 30 ? 'call openEngine(dataDir) first' : `plain note number ${i} about rivers${padding}`;

/** An index as kb wrote it at schema 10, every chunk in the trigram index: `rows` chunks of one document. */
async function schema10(text: (i: number) => string = sixty(), rows = 60): Promise<string> {
  const file = join(await tempDir(), 'kb.sqlite');
  schema10At(file, text, rows);
  return file;
}

const indexed = (db: Db, table: 'chunks_tri' | 'words_tri'): number =>
  (db.prepare(`SELECT count(*) AS n FROM ${table}_docsize`).get() as { n: number }).n;

describe('the substrings and packing upgrades (migrations 11 and 12)', () => {
  it('goes a batch at a time, survives being stopped, keeps every search working, and ends with only the spaceless chunks', async () => {
    const file = await schema10();
    let db = openDb(file, { upgrade: false });
    expect(substringsUpgrade(db)).toEqual({ cursor: 0, end: 60 });
    let words = new WordIndex(db);
    // Before the upgrade: the old index answers, letters inside ordinary words too.
    expect(words.substring('ivers', { tags: [] })).toHaveLength(57);
    expect(upgradeSubstrings(db, 25)).toEqual({ cursor: 25, end: 60 });
    // Stopped half-way (the process ends): the next open goes on from there.
    db.close();
    db = openDb(file, { upgrade: false });
    words = new WordIndex(db);
    expect(substringsUpgrade(db)).toEqual({ cursor: 25, end: 60 });
    expect(words.substring('형태소', { tags: [] })).toHaveLength(1);
    expect(words.substring('ngine', { tags: [] })).toHaveLength(1);
    // Chunks come and go meanwhile: before the cursor, after it, and new ones.
    db.prepare("DELETE FROM chunks WHERE id IN ('c17', 'c41')").run();
    const add = db.prepare(
      `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version) VALUES (?, ?, ?, '', ?, '{"kind":"lines","start":1,"end":1}', 1)`,
    );
    add.run('n1', DOC, 100, `${KOREAN} 다시`);
    add.run('n2', DOC, 101, 'the parseHeaderLine helper');
    expect(() => wordIndexCounts(db)).not.toThrow();
    while (upgradeSubstrings(db, 25) !== null);
    expect(substringsUpgrade(db)).toBeNull();
    // Only the chunks written without spaces are in the trigram index; it and the words pass FTS5's checks.
    expect(indexed(db, 'chunks_tri')).toBe(1);
    expect(wordIndexCounts(db)).toEqual({ chunks: 60, indexed: 60 });
    expect(words.substring('형태소', { tags: [] })).toEqual([
      (db.prepare("SELECT rowid FROM chunks WHERE id = 'n1'").get() as { rowid: number }).rowid,
    ]);
    // Latin letters are looked for inside the words that have an inside.
    expect(words.substring('ngine', { tags: [] })).toHaveLength(1);
    expect(words.substring('headerline', { tags: [] })).toHaveLength(1);
    expect(words.substring('ivers', { tags: [] })).toEqual([]);
    // And the triggers now keep the new index: a CJK chunk in, a Latin one not.
    add.run('n3', DOC, 102, JAPANESE);
    add.run('n4', DOC, 103, 'yet another plain line');
    expect(indexed(db, 'chunks_tri')).toBe(2);
    db.prepare("DELETE FROM chunks WHERE id IN ('n1', 'n4')").run();
    expect(indexed(db, 'chunks_tri')).toBe(1);
    expect(() => wordIndexCounts(db)).not.toThrow();
    // "Is this word written somewhere?" asks the chunks holding its stem.
    expect(words.written('rivers')).toBe(true);
    expect(words.written('river')).toBe(false);
    db.close();
  });

  it('then packs every chunk written with spaces, resumably, and the word index still finds them', async () => {
    const file = await schema10();
    let db = openDb(file, { upgrade: false });
    expect(packingUpgrade(db)).toEqual({ cursor: 0, end: 60 });
    // Not before the substrings upgrade is done: its triggers read the text column.
    expect(upgradePacking(db, 25)).toEqual({ cursor: 0, end: 60 });
    while (upgradeSubstrings(db, 100) !== null);
    expect(upgradePacking(db, 25)).toEqual({ cursor: 25, end: 60 });
    db.close();
    db = openDb(file, { upgrade: false });
    while (upgradePacking(db, 25) !== null);
    expect(packingUpgrade(db)).toBeNull();
    const packed = db.prepare("SELECT count(*) AS n FROM chunks WHERE packed IS NOT NULL AND text = ''").get() as { n: number };
    expect(packed.n).toBe(58);
    expect(db.prepare('SELECT text FROM chunks WHERE packed IS NULL ORDER BY rowid').all()).toEqual([{ text: KOREAN }, { text: JAPANESE }]);
    const words = new WordIndex(db);
    expect(words.count('"rivers"', null)).toBe(57);
    expect(words.texts([31])[0]?.text).toBe('call openEngine(dataDir) first');
    expect(wordIndexCounts(db)).toEqual({ chunks: 60, indexed: 60 });
    // New chunks are written packed; tags changing (the heading update) re-index them from the packed text.
    db.prepare(
      `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version, packed) VALUES ('p1', ?, 200, '', '', '{}', 1, kb_pack('a packed walrus'))`,
    ).run(DOC);
    db.exec('UPDATE chunks SET heading = heading');
    expect(words.count('"walrus"', null)).toBe(1);
    expect(words.count('"rivers"', null)).toBe(57);
    expect(() => wordIndexCounts(db)).not.toThrow();
    db.close();
  });

  it('last writes the word index again with the text first, ranking and counting as before', async () => {
    const file = await schema10();
    let db = openDb(file, { upgrade: false });
    while (upgradeSubstrings(db, 100) !== null);
    while (upgradePacking(db, 100) !== null);
    let words = new WordIndex(db);
    const weights = [0.5, 1, 1] as const;
    const before = words.candidates('"rivers" OR "plain"', weights, null, 100);
    // Average tokens of title, heading and body, from FTS5's statistics record, whatever its column order.
    const stats = (): readonly number[] => new IndexStats(words, defaultConfig()).fieldModel().avgLength;
    const fields = stats();
    expect(ftsOrderUpgrade(db)).toEqual({ cursor: 0, end: 60 });
    expect(upgradeFtsOrder(db, 25)).toEqual({ cursor: 25, end: 60 });
    db.close();
    db = openDb(file, { upgrade: false });
    words = new WordIndex(db);
    // Half-way: the old index answers; chunks come and go in both.
    const add = db.prepare(
      `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version) VALUES (?, ?, ?, '', ?, '{}', 1)`,
    );
    add.run('x1', DOC, 300, 'plain rivers again');
    db.prepare("DELETE FROM chunks WHERE id IN ('c3', 'c50', 'x1')").run();
    expect(words.count('"rivers"', null)).toBe(55);
    while (upgradeFtsOrder(db, 25) !== null);
    expect((db.prepare("SELECT name FROM pragma_table_info('chunks_fts')").all() as { name: string }[]).map((r) => r.name)).toEqual([
      'text',
      'title',
      'heading',
      'meta',
    ]);
    expect(words.count('"rivers"', null)).toBe(55);
    // The same order (the scores moved only with the two chunks fewer).
    expect(words.candidates('"rivers" OR "plain"', weights, null, 100).map((c) => c.rowid)).toEqual(
      before.map((c) => c.rowid).filter((r) => r !== 4 && r !== 51),
    );
    expect(stats()[0]).toBeCloseTo(fields[0]!, 6);
    expect(stats()[2]).toBeGreaterThan(5);
    expect(stats()[2]).toBeCloseTo(fields[2]!, 0);
    expect(words.documentFrequency('river')).toBe(55);
    expect(wordIndexCounts(db)).toEqual({ chunks: 58, indexed: 58 });
    db.close();
  });

  it('then packs each chunk as one record of its heading, anchor and text, against a dictionary learnt from the index', async () => {
    const file = await schema10((i) => `plain note number ${i} about rivers, their deltas and the sea`, 3000);
    let db = openDb(file, { upgrade: false });
    db.exec(
      "UPDATE chunks SET heading = 'Rivers > Deltas ' || rowid, anchor = json_object('kind', 'lines', 'start', rowid, 'end', rowid + 2)",
    );
    while (upgradeSubstrings(db, 5000) !== null);
    while (upgradePacking(db, 5000) !== null);
    while (upgradeFtsOrder(db, 5000) !== null);
    const chunks = (): ReturnType<Chunks['ofDoc']> => new Chunks(db).ofDoc(DOC);
    const before = chunks();
    expect(before[9]).toMatchObject({ heading: 'Rivers > Deltas 10', anchor: '{"kind":"lines","start":10,"end":12}' });
    const bytes = (): number =>
      (db.prepare('SELECT sum(length(packed) + length(heading) + length(anchor)) AS n FROM chunks').get() as { n: number }).n;
    const formatOne = bytes();
    // Another process, reading all along: it never saw the dictionary being made.
    const reader = openDb(file, { upgrade: false });
    expect(new Chunks(reader).ofDoc(DOC)).toEqual(before);
    expect(recordsUpgrade(db)).toEqual({ cursor: 0, end: 3000 });
    expect(upgradeRecords(db, 1000)).toEqual({ cursor: 1000, end: 3000 });
    // Half-way, each chunk reads the same, whichever way it is stored; then the next open goes on.
    expect(chunks()).toEqual(before);
    db.close();
    db = openDb(file, { upgrade: false });
    while (upgradeRecords(db, 1000) !== null);
    expect(chunks()).toEqual(before);
    expect(new Chunks(reader).ofDoc(DOC)).toEqual(before);
    expect(db.prepare("SELECT count(*) AS n FROM chunks WHERE heading || anchor || text <> ''").get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT id, chunks FROM pack_dictionaries').all()).toEqual([{ id: 1, chunks: 3000 }]);
    expect(bytes()).toBeLessThan(formatOne * 0.6);
    // The word index was not written again, and still has the headings' words; a tag change
    // (the heading update) indexes each chunk again from its record.
    const words = new WordIndex(db);
    expect(words.count('"deltas"', null)).toBe(3000);
    db.exec('UPDATE chunks SET heading = heading');
    expect(words.count('"deltas"', null)).toBe(3000);
    expect(wordIndexCounts(db)).toEqual({ chunks: 3000, indexed: 3000 });
    // New chunks are records packed with the dictionary; the reader unpacks them too.
    new Chunks(db).insert(DOC, [
      {
        id: 'w1',
        ordinal: 9000,
        heading: 'Seals > Walrus',
        text: 'a walrus on the delta',
        anchor: { kind: 'lines', start: 4, end: 5 },
        chunker_version: 1,
      },
    ]);
    expect(db.prepare("SELECT hex(substr(packed, 1, 2)) AS h, heading FROM chunks WHERE id = 'w1'").get() as object).toEqual({
      h: '0201',
      heading: '',
    });
    expect(new Chunks(reader).byId('w1')).toMatchObject({
      heading: 'Seals > Walrus',
      text: 'a walrus on the delta',
      anchor: '{"kind":"lines","start":4,"end":5}',
    });
    expect(words.count('"walrus"', null)).toBe(1);
    expect(words.count('"seal"', null)).toBe(1);
    reader.close();
    db.close();
  });

  it('is done when a small index opens, its searches find what they found before, and kb gc gives the old index back', async () => {
    // Varied letters, as prose has: the old trigram index of them is most of the file.
    let seed = 7;
    const letter = (): string => String.fromCharCode(97 + Math.floor(((seed = (seed * 16807) % 2147483647) / 2147483647) * 26));
    const padding = Array.from({ length: 3000 }, () => ` ${Array.from({ length: 6 }, letter).join('')}`).join('');
    const file = await schema10(sixty(padding));
    const engine = await engineIn(join(file, '..'));
    try {
      expect((await engine.doctor()).checks.find((c) => c.name === 'index upgrade')).toBeUndefined();
      expect((await engine.search({ query: '電車', mode: 'lexical' })).results[0]?.text).toBe(JAPANESE);
      expect((await engine.search({ query: 'Engine', mode: 'lexical', explain: true })).results[0]?.text).toContain('openEngine');
      // The old trigram index's pages are free pages of the file, the packed rows' pages half empty:
      // kb gc rewrites the file once, and everything is still found.
      const before = statSync(file).size;
      const gc = await engine.gc();
      expect(gc.compacted_bytes).toBeGreaterThan(0);
      expect(statSync(file).size).toBeLessThan(before - gc.compacted_bytes / 2);
      expect((await engine.gc()).compacted_bytes).toBe(0);
      expect((await engine.search({ query: 'rivers', mode: 'lexical' })).total_matches).toBe(57);
      expect((await engine.search({ query: '電車', mode: 'lexical' })).results[0]?.text).toBe(JAPANESE);
    } finally {
      engine.close();
    }
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT value FROM meta WHERE key = 'substrings_upgrade'").get()).toBeUndefined();
    expect(db.prepare('SELECT count(*) AS n FROM chunks_tri_docsize').get()).toEqual({ n: 2 });
    db.close();
  });

  it('a document added while the upgrades wait their turn keeps its words through every one of them', async () => {
    // Too big to be upgraded as it opens: the upgrades run one after another in the background, and
    // documents are added before the word index's own upgrade has begun (the model-based test found it).
    const file = await schema10(sixty(), 21_000);
    const dir = join(file, '..');
    // The notes live outside the data dir: kb never reads its own folder.
    const notes = await tempDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(notes, 'heron.txt'), 'The record zqheronword was written down.');
    await writeFile(
      join(notes, 'long.txt'),
      Array.from({ length: 400 }, (_, i) => `line ${i} of the long note about otters`).join('\n') + '\nzqotterword',
    );
    const engine = await engineIn(dir);
    try {
      await engine.ingest([join(notes, 'heron.txt'), join(notes, 'long.txt')]);
      const finds = async (w: string): Promise<number> =>
        (await engine.search({ query: w, mode: 'lexical', correct: false })).results.length;
      expect([await finds('zqheronword'), await finds('zqotterword')]).toEqual([1, 1]);
      engine.keepUp();
      await engine.backgroundWork();
      expect(await engine.doctor().then((r) => r.checks.find((c) => c.name === 'index upgrade'))).toBeUndefined();
      expect([await finds('zqheronword'), await finds('zqotterword')]).toEqual([1, 1]);
      const fts = (await engine.doctor()).checks.find((c) => c.name === 'full-text index');
      expect(fts?.status).toBe('ok');
    } finally {
      engine.close();
    }
  });

  it('killed at random moments (SIGKILL), leaves an index that is searchable and sound, and finishes on the next run', async () => {
    // 30,000 chunks: more than an index is upgraded at open, so kb doctor --fix does it, in batches.
    const file = await schema10(
      (i) => (i % 1000 === 7 ? `${KOREAN} ${i}` : i % 1000 === 9 ? `call openEngine${i} first` : `plain note ${i} about rivers and lakes`),
      30_000,
    );
    const dataDir = join(file, '..');
    const env = { ...process.env, KB_CONFIG: join(dataDir, 'none.yaml'), NO_COLOR: '1' };
    const check = (): void => {
      const db = openDb(file, { upgrade: false });
      try {
        const words = new WordIndex(db);
        expect(wordIndexCounts(db)).toEqual({ chunks: 30_000, indexed: 30_000 });
        expect(words.count('"rivers"', null)).toBe(29_940);
        expect(words.substring('형태소', { tags: [] })).toHaveLength(30);
        expect(words.substring('penengine', { tags: [] })).toHaveLength(30);
      } finally {
        db.close();
      }
    };
    /** The upgrades seen half-way (their cursor moved) at the moment a run was killed. */
    const midway: string[] = [];
    // One kill in each upgrade (substrings, packing, word index order, records), then one more in whichever is left.
    for (const target of ['substrings_upgrade', 'packing_upgrade', 'fts_upgrade', 'records_upgrade', '%_upgrade']) {
      const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'doctor', '--fix', '--json', '--data-dir', dataDir], {
        env,
        stdio: 'ignore',
      });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, sig) => resolve(sig)));
      let running = true;
      void exited.then(() => (running = false));
      // Killed as soon as an upgrade is seen under way: mid-batch or between batches, wherever it is.
      while (running) {
        const probe = new Database(file, { readonly: true });
        const pending = probe.prepare("SELECT key FROM meta WHERE key LIKE ? AND value ->> 'cursor' > 0").all(target) as {
          key: string;
        }[];
        probe.close();
        if (pending.length > 0) {
          child.kill('SIGKILL');
          midway.push(...pending.map((p) => p.key));
          break;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await exited;
      check();
    }
    // The kills caught the upgrades half-way; each went on from where it was killed.
    expect(new Set(midway).size).toBeGreaterThanOrEqual(2);
    const done = spawnSync(process.execPath, [join(repoRoot, 'bin/kb.js'), 'doctor', '--fix', '--json', '--data-dir', dataDir], {
      env,
      encoding: 'utf8',
    });
    expect(done.status).toBe(0);
    check();
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT key FROM meta WHERE key LIKE '%_upgrade'").all()).toEqual([]);
    expect((db.prepare("SELECT name FROM pragma_table_info('chunks_fts')").get() as { name: string }).name).toBe('text');
    expect(db.prepare('SELECT count(*) AS n FROM chunks WHERE packed IS NULL').get()).toEqual({ n: 30 });
    expect(db.prepare("SELECT count(*) AS n FROM chunks WHERE packed IS NOT NULL AND hex(substr(packed, 1, 1)) = '02'").get()).toEqual({
      n: 29_970,
    });
    db.close();
  }, 120_000);
});
