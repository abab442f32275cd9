// One ranking, two stores: the same passages written through the store port into SQLite (FTS5) and
// PostgreSQL (tsvectors, BM25F in SQL), searched by the same LexicalSearcher over each store's word
// source, give the same hits in the same order with the same scores — single words, several, a
// phrase, a word being typed, filters, a word misspelt.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/shared/config.js';
import type { Store } from '../src/worker/store/port.js';
import type { Filters } from '../src/worker/store/doc-filter.js';
import type { DocRow } from '../src/worker/store/rows.js';
import type { Db } from '../src/worker/store/db.js';
import { openDb } from '../src/worker/store/open-db.js';
import { SqliteStore } from '../src/worker/store/sqlite-store.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PgStore } from '../src/worker/store/postgres/pg-store.js';
import { PgWordIndex } from '../src/worker/store/postgres/word-index.js';
import { PgWordTops } from '../src/worker/store/postgres/word-tops.js';
import { Candidates } from '../src/worker/search/candidates.js';
import { LexicalSearcher } from '../src/worker/search/lexical.js';
import { PgWordSource } from '../src/worker/search/pg-word-source.js';
import { parseQuery } from '../src/worker/search/query.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { tempDir } from './helpers.js';
import { docRow } from './support/rows.js';

const available = postgresAvailable();

/** A small seeded library: topics share some words, so words are rare, common and in between. */
function library(): { doc: DocRow; tags: string[]; chunks: { heading: string; text: string }[] }[] {
  let seed = 7;
  const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const topics = [
    ['river', 'delta', 'estuary', 'sediment', 'flood', 'otter', 'salmon'],
    ['compiler', 'parser', 'token', 'grammar', 'backtracking', 'lexer', 'syntax'],
    ['bread', 'yeast', 'flour', 'oven', 'crust', 'dough', 'rising'],
    ['orbit', 'rocket', 'thrust', 'payload', 'gravity', 'launch', 'stage'],
  ];
  const common = ['the', 'and', 'with', 'system', 'works', 'often', 'many', 'small', 'running', 'connected'];
  const out = [];
  for (let d = 0; d < 60; d++) {
    const topic = topics[d % topics.length]!;
    const chunks = [];
    for (let c = 0; c < 4; c++) {
      const words: string[] = [];
      const len = 20 + Math.floor(rnd() * 60);
      for (let i = 0; i < len; i++) words.push(rnd() < 0.45 ? pick(topic) : rnd() < 0.5 ? pick(common) : pick(pick(topics)));
      chunks.push({ heading: `${pick(topic)} notes`, text: words.join(' ') + '.' });
    }
    const doc = docRow(`doc${String(d).padStart(3, '0')}`, `/lib/${topic[0]}/${d}.md`, {
      title: `${pick(topic)} and ${pick(topic)}`,
      type: d % 3 === 0 ? 'note' : 'markdown',
      content_hash: `h${d}`,
      original: 'reference',
    });
    out.push({ doc, tags: d % 5 === 0 ? ['starred'] : [], chunks });
  }
  return out;
}

async function fill(store: Store): Promise<void> {
  for (const { doc, tags, chunks } of library()) {
    await store.write(async (t) => {
      await t.documents.upsert(doc);
      await t.tags.add(doc.id, tags);
      await t.chunks.replace(
        doc.id,
        chunks.map((c, i) => ({
          id: `${doc.id}-${i}`,
          ordinal: i,
          ...c,
          anchor: { kind: 'lines', start: i + 1, end: i + 2 },
          chunker_version: 1,
        })),
      );
    });
  }
}

describe.skipIf(!available)('one ranking on both stores', () => {
  let cluster: PgCluster;
  let db: Db;
  let pg: PgStore;
  let sqlite: SqliteStore;
  let onSqlite: LexicalSearcher;
  let onPg: LexicalSearcher;
  const config = defaultConfig();

  beforeAll(async () => {
    cluster = await startCluster();
    const url = await cluster.database();
    const pool = await openPool(url);
    await migratePg(pool);
    pg = new PgStore(pool, url);
    const file = join(await tempDir(), 'kb.sqlite');
    db = openDb(file);
    sqlite = new SqliteStore(db, file);
    await fill(sqlite);
    await fill(pg);
    onSqlite = new LexicalSearcher(new Candidates(db, config), config);
    onPg = new LexicalSearcher(new PgWordSource(new PgWordIndex(pool), config, new PgWordTops(pool)), config);
  });
  afterAll(async () => {
    db?.close();
    await pg?.close();
    cluster?.stop();
  });

  /** The hits as chunk ids with their scores: rowids are each store's own. */
  async function hits(store: Store, searcher: LexicalSearcher, query: string, prefix = false, filters: Filters = { tags: [] }) {
    const r = await searcher.search(parseQuery(query, { prefix }), filters, 10);
    const byRow = new Map<number, string>();
    for (const { doc } of library()) for (const c of await store.tables.chunks.ofDoc(doc.id)) byRow.set(c.rowid, c.id);
    return {
      ids: r.hits.map((h) => byRow.get(h.rowid)),
      scores: r.hits.map((h) => h.score),
      total: r.total,
      matched: r.hits.map((h) => h.matched),
    };
  }

  it.each([
    ['a rare word', 'backtracking'],
    ['a common word', 'system'],
    ['two words', 'river otter'],
    ['three words, one common', 'rocket payload running'],
    ['a phrase', '"flood otter"'],
    ['a question', 'how does the yeast make the dough rise in a hot oven'],
  ])('%s: %s', async (_what, query) => {
    const a = await hits(sqlite, onSqlite, query);
    const b = await hits(pg, onPg, query);
    expect(a.ids.length).toBeGreaterThan(0);
    expect(b.ids).toEqual(a.ids);
    b.scores.forEach((s, i) => expect(s).toBeCloseTo(a.scores[i]!, 6));
    expect(b.matched).toEqual(a.matched);
    expect(b.total).toBe(a.total);
  });

  it('finds the same chunks under a filter, and as the tags allow', async () => {
    for (const [query, filters] of [
      ['crust', { tags: [], type: 'note' }],
      ['orbit', { tags: ['starred'] }],
      ['orbit', { tags: ['nobody'] }],
    ] satisfies [string, Filters][]) {
      const a = await hits(sqlite, onSqlite, query, false, filters);
      const b = await hits(pg, onPg, query, false, filters);
      expect(b.ids, query).toEqual(a.ids);
    }
  });

  it('finds the same chunks for a word being typed, each store ordering them by its own score', async () => {
    // A half-typed word keeps the store's own score (ranking.ts): FTS5's bm25 there, kb's BM25F here.
    const a = await hits(sqlite, onSqlite, 'compi', true);
    const b = await hits(pg, onPg, 'compi', true);
    expect(b.total).toBe(a.total);
    expect(b.ids).toHaveLength(10);
    for (const m of b.matched) expect(m).toEqual(['compi']);
  });

  it('corrects a misspelt word to the same word', async () => {
    for (const q of ['backtrakcing', 'sedimnet', 'rockte']) {
      const parsed = parseQuery(q, { prefix: false });
      expect(await onPg.spelling(parsed), q).toEqual(await onSqlite.spelling(parsed));
    }
  });
});
