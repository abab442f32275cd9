// The PostgreSQL store's word index on a real server: BM25F computed in SQL equals the ranking's own
// (search/bm25.ts) chunk by chunk; phrases, prefixes and filters match as the SQLite store's do; the
// statistics follow the chunks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PgStore } from '../src/worker/store/postgres/pg-store.js';
import { PgWordIndex } from '../src/worker/store/postgres/word-index.js';
import { tsquery } from '../src/worker/store/postgres/tsquery.js';
import type { DocRow, NewChunk } from '../src/worker/store/rows.js';
import { bm25f, idf } from '../src/worker/search/bm25.js';
import { indexForm, WORD_TOKEN } from '../src/worker/words.js';
import { docRow } from './support/rows.js';

const available = postgresAvailable();

const PASSAGES: [title: string, heading: string, text: string][] = [
  ['Zebra notes', 'Stripes', 'Zebras have stripes. A zebra herd moves together across the plain.'],
  ['Lions', 'Hunting', 'The lion hunts zebras at night; lions rest by day.'],
  ['Plains', 'Grass', 'Grass grows on the plain where the herds graze and the rains come.'],
  ['Migration of zebras', 'Routes', 'Every year zebras and wildebeest migrate; the zebra migration is long.'],
  ['Notes', 'Misc', "O'Reilly's book on café culture, naïve but useful."],
];

function doc(id: string, title: string, type: DocRow['type'] = 'markdown'): DocRow {
  return docRow(id, `/lib/${id}.md`, { title, type, original: 'reference' });
}

function counts(field: string, form: string): number {
  return [...field.matchAll(WORD_TOKEN)].filter((m) => indexForm(m[0]).stem === form).length;
}
const length = (field: string): number => [...field.matchAll(WORD_TOKEN)].length;

describe.skipIf(!available)('the PostgreSQL word index', () => {
  let cluster: PgCluster;
  let store: PgStore;
  let index: PgWordIndex;

  beforeAll(async () => {
    cluster = await startCluster();
    const url = await cluster.database();
    const pool = await openPool(url);
    await migratePg(pool);
    store = new PgStore(pool, url);
    index = new PgWordIndex(pool);
    for (const [i, [title, heading, text]] of PASSAGES.entries()) {
      await store.write(async (t) => {
        await t.documents.upsert(doc(`d${i}`, title, i === 1 ? 'note' : 'markdown'));
        const c: NewChunk = { id: `c${i}`, ordinal: 0, heading, text, anchor: { kind: 'lines', start: 1, end: 2 }, chunker_version: 1 };
        await t.chunks.replace(`d${i}`, [c]);
      });
    }
    await store.tables.tags.add('d3', ['travel']);
  });
  afterAll(async () => {
    await store?.close();
    cluster?.stop();
  });

  it('keeps N, the fields’ average lengths and each stem’s document frequency', async () => {
    const t = await index.totals();
    expect(t.n).toBe(PASSAGES.length);
    expect(t.avg[2]).toBeCloseTo(PASSAGES.reduce((s, p) => s + length(p[2]), 0) / PASSAGES.length, 9);
    const df = await index.docFreq(['zebra', 'lion', 'nothing']);
    expect(df).toEqual(
      new Map([
        ['zebra', 3],
        ['lion', 1],
      ]),
    );
    expect(await index.begins('migr')).toBe(true);
    expect(await index.begins('migx')).toBe(false);
  });

  it('scores every candidate by BM25F exactly as the ranking computes it', async () => {
    const t = await index.totals();
    const model = { weights: [0.5, 1, 1] as [number, number, number], avgLength: t.avg, n: t.n, k1: 3, b: 0.5 };
    const query = ['zebra', 'migrat', 'plain'];
    const df = await index.docFreq(query);
    const words = query.map((form) => ({ form, weight: idf(t.n, df.get(form) ?? 0), prefix: false }));
    const got = await index.candidates(
      tsquery({ either: words }),
      { words, fieldWeights: model.weights, avg: t.avg, k1: model.k1, b: model.b },
      { tags: [] },
      null,
      10,
    );
    expect(got.length).toBe(4);
    for (const c of got) {
      const { title, heading, text } = (await index.texts([c.rowid]))[0]!;
      const lengths: [number, number, number] = [length(title), length(heading), length(text)];
      const expected = query.reduce(
        (sum, form) => sum + bm25f([counts(title, form), counts(heading, form), counts(text, form)], lengths, df.get(form) ?? 0, model),
        0,
      );
      // ts_rank_cd sums the weights in single precision: the same score to seven digits.
      expect(Math.abs(c.score - expected) / expected).toBeLessThan(1e-6);
    }
    // Best first: the chunk about zebras' migration, whose title holds both.
    expect((await index.texts([got[0]!.rowid]))[0]!.title).toBe('Migration of zebras');
  });

  it('matches phrases as written, prefixes, and words with quotes, under the filters', async () => {
    const w = (form: string, prefix = false): { form: string; prefix: boolean } => ({ form, prefix });
    const scored = {
      words: [],
      fieldWeights: [0.5, 1, 1] as [number, number, number],
      avg: [1, 1, 1] as [number, number, number],
      k1: 3,
      b: 0.5,
    };
    const texts = async (m: Parameters<typeof tsquery>[0], f = { tags: [] as string[] }): Promise<string[]> =>
      (await index.texts((await index.candidates(tsquery(m), scored, f, null, 10)).map((c) => c.rowid))).map((x) => x.title).sort();
    expect(await texts({ either: [[w('zebra'), w('herd')]] })).toEqual(['Zebra notes']); // "zebra herd" as written
    expect(await texts({ either: [[w('herd'), w('zebra')]] })).toEqual([]);
    expect(await texts({ either: [w('migr', true)] })).toEqual(['Migration of zebras']);
    expect(await texts({ either: [w("o'reilli")] })).toEqual([]); // the index holds "o" and "reilli": the apostrophe cuts
    expect(await texts({ either: [[w('o'), w('reilli')]] })).toEqual(['Notes']);
    expect(await texts({ either: [w('cafe')] })).toEqual(['Notes']); // diacritics folded, as unicode61 folds them
    expect(await texts({ every: [w('zebra'), w('lion')] })).toEqual(['Lions']);
    expect(await texts({ either: [w('zebra')] }, { tags: ['travel'] })).toEqual(['Migration of zebras']);
    expect(await texts({ either: [w('zebra')] }, { tags: ['nobody'] })).toEqual([]);
    expect((await index.candidates(tsquery({ either: [w('zebra')] }), scored, { tags: [], type: 'note' }, null, 10)).length).toBe(1);
    expect(await index.count(tsquery({ either: [w('zebra')] }), { tags: [] }, null)).toBe(3);
  });

  it('follows the chunks as documents go: frequencies, totals and what matches', async () => {
    const before = await index.generation();
    await store.tables.documents.delete('d0');
    expect(await index.generation()).toBeGreaterThan(before);
    expect((await index.docFreq(['zebra'])).get('zebra')).toBe(2);
    expect((await index.totals()).n).toBe(PASSAGES.length - 1);
    expect((await index.docFreq(['stripe'])).has('stripe')).toBe(false);
  });
});
