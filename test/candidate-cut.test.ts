// kb scores a bounded set of FTS5 candidates (search/ranking.ts), not every match: the cut must not
// change what a search shows. On an index where two words are common (their chunks are not all
// scored) and FTS5's own bm25 orders chunks otherwise than kb's BM25F, the top 10 with the cut is the
// top 10 of scoring every chunk a word of the query matches; and a rare word found in fewer chunks
// than a page holds leaves the rest of the page to the common words.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../src/shared/config.js';
import { openEngine, type Engine } from '../src/worker/index.js';
import { Candidates } from '../src/worker/search/candidates.js';
import { LexicalSearcher } from '../src/worker/search/lexical.js';
import { parseQuery } from '../src/worker/search/query.js';
import type { Db } from '../src/worker/store/db.js';
import { openDb } from '../src/worker/store/open-db.js';

const CHUNKING = { target_chars: 100, max_chars: 400, min_chars: 20, note_max_chars: 100, overlap_chars: 0 };
const PARAS = 2400;

/**
 * A deterministic paragraph: "river" in 5 of 8, "delta" in half, "otter" twice; "estuary" in 1 of 20,
 * once in a short paragraph or six times in a long one. FTS5's bm25 (k1 1.2, b 0.75) puts the short
 * ones first, kb's BM25F (k1 3, b 0.5) the long ones: kb's best are deep in FTS5's order.
 */
function para(i: number): string {
  const words: string[] = [`Entry${i}`];
  if (i % 8 < 5) words.push('river '.repeat(1 + (i % 3)).trim());
  if (i % 2 === 0) words.push('delta');
  const estuary = i % 20 === 7;
  const long = estuary && i % 60 === 7;
  if (estuary) words.push(long ? 'estuary '.repeat(6).trim() : 'estuary');
  if (i === 100 || i === 2000) words.push('otter');
  for (let k = 0; k < (long ? 60 : 2 + ((i * 7) % 13)); k++) words.push(`filler${(i + k) % 50}`);
  return `${words.join(' ')}.`;
}

let dir: string;
let engine: Engine;
let db: Db;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-cut-'));
  await writeFile(join(dir, 'notes.txt'), ['Notes', ...Array.from({ length: PARAS }, (_, i) => para(i))].join('\n\n'));
  engine = await openEngine({ dataDir: join(dir, 'data'), config: { chunking: CHUNKING } });
  await engine.ingest([join(dir, 'notes.txt')]);
  db = openDb(join(dir, 'data', 'kb.sqlite'));
}, 60_000);

afterAll(async () => {
  db.close();
  engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the candidate cut', () => {
  it('shows the top 10 that scoring every match shows', async () => {
    const config = defaultConfig();
    const searcher = new LexicalSearcher(new Candidates(db, config), config);
    const chunks = (db.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    expect(chunks).toBeGreaterThan(2000);
    for (const query of ['estuary', 'river delta', 'delta river estuary', 'estuary river', 'river', 'otter river', 'otter delta river']) {
      const q = parseQuery(query, { prefix: false });
      const cut = await searcher.search(q, { tags: [] }, 10);
      const all = await searcher.search(q, { tags: [] }, 10, true);
      expect(all.hits).toHaveLength(10);
      expect(
        cut.hits.map((h) => h.rowid),
        query,
      ).toEqual(all.hits.map((h) => h.rowid));
    }
  });

  it('fills the page with the common words when the rare one is in fewer chunks than it holds', async () => {
    const r = await engine.search({ query: 'otter river', mode: 'lexical', top: 10 });
    expect(r.results).toHaveLength(10);
    expect(r.results.slice(0, 2).map((h) => h.text.includes('otter'))).toEqual([true, true]);
    expect(r.results.slice(2).every((h) => h.text.includes('river') && !h.text.includes('otter'))).toBe(true);
  });
});

/**
 * Two mid-frequency words, both heavy enough to keep their tops (tops_min_df 100: a word from 25
 * chunks, on indexes of 500): "heron" in 1 of 6 paragraphs, "egret" in 1 of 7, "marsh" in 1 of 40;
 * long paragraphs say a word many times, short ones once, so FTS5's bm25 and kb's BM25F disagree.
 */
function birds(i: number): string {
  const words: string[] = [`Note${i}`];
  const long = i % 9 === 4;
  const times = long ? 5 : 1;
  if (i % 6 === 1) words.push('heron '.repeat(times).trim());
  if (i % 7 === 2) words.push('egret '.repeat(times).trim());
  if (i % 40 === 3) words.push('marsh');
  for (let k = 0; k < (long ? 50 : 2 + ((i * 5) % 11)); k++) words.push(`reed${(i + k) % 40}`);
  return `${words.join(' ')}.`;
}

describe('the candidate cut with several heavy words', () => {
  let birdDir: string;
  let birdEngine: Engine;
  let birdDb: Db;

  beforeAll(async () => {
    birdDir = await mkdtemp(join(tmpdir(), 'kb-cut-birds-'));
    await writeFile(join(birdDir, 'birds.txt'), ['Birds', ...Array.from({ length: 1800 }, (_, i) => birds(i))].join('\n\n'));
    birdEngine = await openEngine({ dataDir: join(birdDir, 'data'), config: { chunking: CHUNKING, search: { tops_min_df: 100 } } });
    await birdEngine.ingest([join(birdDir, 'birds.txt')]);
    for (let w = birdEngine.backgroundWork(); w; w = birdEngine.backgroundWork()) await w;
    birdDb = openDb(join(birdDir, 'data', 'kb.sqlite'));
  }, 60_000);

  afterAll(async () => {
    birdDb.close();
    birdEngine.close();
    await rm(birdDir, { recursive: true, force: true });
  });

  it('takes each word from its tops and the chunks holding two from FTS5, and shows what scoring every match shows', async () => {
    const config = defaultConfig();
    config.search.tops_min_df = 100;
    const searcher = new LexicalSearcher(new Candidates(birdDb, config), config);
    for (const query of ['heron egret', 'egret heron marsh', 'marsh heron', 'heron reed3 egret']) {
      const q = parseQuery(query, { prefix: false });
      const cut = await searcher.search(q, { tags: [] }, 10);
      const all = await searcher.search(q, { tags: [] }, 10, true);
      expect(cut.ftsQuery, query).toMatch(/^tops of each of /);
      expect(all.hits).toHaveLength(10);
      expect(
        cut.hits.map((h) => h.rowid),
        query,
      ).toEqual(all.hits.map((h) => h.rowid));
    }
  });
});
