// The tops of heavy words and prefixes (search/tops.ts): built in the background once an index is big
// enough, kept up as documents come and go, and answering exactly what scoring every match answers.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchParams, SearchResult } from '../src/shared/wire.js';
import { openEngine, type Engine } from '../src/worker/index.js';
import pg from 'pg';
import type { Config } from '../src/shared/config.js';
import { heavyAt, heavyUnits, stillValid, TOPS_K, TopsBuilder } from '../src/worker/search/tops.js';
import { TopsReader } from '../src/worker/search/tops-reader.js';
import { topsWork, updateTops } from '../src/worker/search/tops-update.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { migratePg } from '../src/worker/store/postgres/migrate.js';
import { PgStore } from '../src/worker/store/postgres/pg-store.js';
import { PgWordTops } from '../src/worker/store/postgres/word-tops.js';
import { PG_SCORING_COST } from '../src/worker/search/pg-word-source.js';
import type { NewChunk } from '../src/worker/store/rows.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { docRow } from './support/rows.js';

const PARAS = 400;
const CHUNKING = { target_chars: 100, max_chars: 400, min_chars: 50, note_max_chars: 100, overlap_chars: 0 };
/** Tops from 40 chunks a unit, on indexes of 200 chunks and more. */
const MIN_DF = 40;

/** "walrus" in three of four paragraphs, 1–3 times, among a varying amount of filler; "walruses" in some. */
function para(i: number): string {
  const walrus = 'walrus '.repeat(i % 4);
  const plural = i % 3 === 0 ? 'walruses ' : '';
  const filler = Array.from({ length: 3 + (i % 11) }, (_, k) => `filler${k}`).join(' ');
  return `Entry ${i}: ${walrus}${plural}${filler} and plain words.`;
}

const search = (e: Engine, query: string, extra: Partial<SearchParams> = {}): Promise<SearchResult> =>
  e.search({ query, mode: 'lexical', explain: true, ...extra });
const ids = (r: SearchResult): string[] => r.results.map((h) => h.chunk_id);
const ftsQuery = (r: SearchResult): string => r.results[0]?.retrieval.explain?.fts_query ?? '';

async function settle(e: Engine): Promise<void> {
  for (let w = e.backgroundWork(); w; w = e.backgroundWork()) await w;
}

/** A store the tops live in, and what the tests read or change of it directly. */
interface Side {
  store: Partial<Config['store']>;
  /** search.tops_min_df that makes the units of MIN_DF: PostgreSQL's word index takes an eighth of it (WordSource.scoringCost). */
  minDf: number;
  units(): Promise<string[]>;
  /** As if the tops were never built (an index from a kb that kept none). */
  forget(): Promise<void>;
  /** The tops' state as kept, and put back. */
  state(): Promise<string | null>;
  restore(state: string): Promise<void>;
}

let cluster: PgCluster | null = null;
const onPg = postgresAvailable();

const sides: { name: string; skip: boolean; side: (dataDir: string) => Promise<Side> }[] = [
  {
    name: 'SQLite',
    skip: false,
    side: async (dataDir) => {
      const file = join(dataDir, 'kb.sqlite');
      return {
        store: {},
        minDf: MIN_DF,
        async units() {
          const db = new Database(file, { readonly: true });
          try {
            return (db.prepare('SELECT unit FROM word_tops ORDER BY unit').all() as { unit: string }[]).map((r) => r.unit);
          } finally {
            db.close();
          }
        },
        async forget() {
          const db = new Database(file);
          db.prepare("DELETE FROM meta WHERE key = 'word_tops'").run();
          db.close();
        },
        async state() {
          const db = new Database(file, { readonly: true });
          try {
            return (db.prepare("SELECT value FROM meta WHERE key = 'word_tops'").get() as { value: string } | undefined)?.value ?? null;
          } finally {
            db.close();
          }
        },
        async restore(state) {
          const db = new Database(file);
          db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('word_tops', ?)").run(state);
          db.close();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    skip: !onPg,
    side: async () => {
      cluster ??= await startCluster();
      const url = await cluster.database();
      const sql = async <R extends pg.QueryResultRow>(text: string): Promise<R[]> => {
        const c = new pg.Client({ connectionString: url, options: '-c search_path=kb -c kb.user=@admin' });
        await c.connect();
        try {
          return (await c.query<R>(text)).rows;
        } finally {
          await c.end();
        }
      };
      return {
        store: { url },
        minDf: MIN_DF * PG_SCORING_COST,
        units: async () => (await sql<{ unit: string }>('SELECT unit FROM word_tops ORDER BY unit')).map((r) => r.unit),
        forget: async () => void (await sql("DELETE FROM meta WHERE key = 'word_tops'")),
        state: async () => (await sql<{ value: string }>("SELECT value FROM meta WHERE key = 'word_tops'"))[0]?.value ?? null,
        restore: async (state) =>
          void (await sql(
            `INSERT INTO meta (key, value) VALUES ('word_tops', '${state.replace(/'/g, "''")}') ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          )),
      };
    },
  },
];

afterAll(() => cluster?.stop());

describe.each(sides)('the tops of heavy words and prefixes on $name', ({ name, skip, side: open }) => {
  let dir: string;
  let engine: Engine;
  let side: Side;

  beforeAll(async () => {
    if (skip) return;
    dir = await mkdtemp(join(tmpdir(), 'kb-tops-'));
    await writeFile(join(dir, 'big.txt'), Array.from({ length: PARAS }, (_, i) => para(i)).join('\n\n'));
    await writeFile(join(dir, 'more.md'), `# More\n\n${Array.from({ length: 60 }, (_, i) => para(i + 7)).join('\n\n')}\n`);
    side = await open(join(dir, 'data'));
    engine = await openEngine({
      dataDir: join(dir, 'data'),
      config: { chunking: CHUNKING, search: { tops_min_df: side.minDf }, store: side.store },
    });
    await engine.ingest([dir]);
    await settle(engine);
  });

  /**
   * The search as the word index alone answers it, every chunk holding the word scored: another engine
   * on the same index while the tops are out of sight (a search returns fewer hits than they hold).
   */
  const exact = async (query: string, extra: Partial<SearchParams> = {}): Promise<SearchResult> => {
    const kept = (await side.state())!;
    await side.forget();
    const other = await openEngine({
      dataDir: join(dir, 'data'),
      config: { chunking: CHUNKING, search: { tops_min_df: side.minDf }, store: side.store },
    });
    try {
      const r = await search(other, query, { top: 200, ...extra });
      expect(ftsQuery(r)).not.toMatch(/^tops of /);
      return r;
    } finally {
      other.close();
      await side.restore(kept);
    }
  };

  afterAll(async () => {
    if (skip) return;
    engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(skip)('are built for the words and prefixes in enough chunks, and not for the filter tokens', async () => {
    const units = await side.units();
    expect(units).toContain('w:walru');
    expect(units).toContain('p:wal');
    expect(units).toContain('p:walrus');
    expect(units).toContain('w:entri');
    expect(units.some((u) => u.includes('kbtype') || u.includes('kblang'))).toBe(false);
    // "123" is in two chunks.
    expect(units).not.toContain('w:123');
  });

  it.skipIf(skip)('are reported by kb doctor, and --fix brings them up to date', async () => {
    const current = (await engine.doctor()).checks.find((c) => c.name === 'common words');
    expect(current).toMatchObject({ status: 'ok' });
    expect(current?.detail).toMatch(/^\d+ words and prefixes in many passages have their best ones ranked/);
    await side.forget();
    expect((await engine.doctor()).checks.find((c) => c.name === 'common words')).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/^their best passages are not ranked yet/),
    });
    const fixed = await engine.fix();
    expect(fixed.actions.find((a) => a.name === 'common words')?.detail).toMatch(
      /^ranked the best passages of \d+ words and prefixes .* \(460 passages read\)/,
    );
    expect(fixed.report.checks.find((c) => c.name === 'common words')).toMatchObject({ status: 'ok' });
  });

  it.skipIf(skip)('answer a heavy word with the hits that scoring every chunk holding it gives', async () => {
    const fromTops = await search(engine, 'walrus');
    expect(ftsQuery(fromTops)).toMatch(/^tops of /);
    // Deeper than the tops hold: the word index scores every match, and its head is the exact ranking.
    const everything = await exact('walrus');
    expect(ids(fromTops)).toEqual(ids(everything).slice(0, 10));
    expect(fromTops.total_matches).toBe(everything.total_matches);
    // Within a type, or a path: the first of the tops that pass, still the exact head.
    for (const filter of [{ type: 'markdown' as const }, { path: '**/big.txt' }]) {
      const narrowed = await search(engine, 'walrus', filter);
      expect(ftsQuery(narrowed)).toMatch(/^tops of /);
      expect(ids(narrowed)).toEqual(ids(await exact('walrus', filter)).slice(0, 10));
      expect(narrowed.results.length).toBe(10);
    }
  });

  it.skipIf(skip)('answer a typed prefix with chunks holding it, best first, counting them without scoring them all', async () => {
    const r = await search(engine, 'walr', { prefix: true, top: 20 });
    expect(ftsQuery(r)).toMatch(/^tops of /);
    expect(r.results).toHaveLength(20);
    for (const h of r.results) expect(h.text).toMatch(/\bwalr/i);
    const scores = r.results.map((h) => h.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(r.total_matches_estimated).toBe(true);
    expect(r.total_matches).toBeGreaterThan(250);
  });

  it.skipIf(skip)('answer a whole word typed as a prefix from the tops holding exactly what it finds', async () => {
    const r = await search(engine, 'walrus', { prefix: true, top: 20 });
    expect(ftsQuery(r)).toMatch(/^tops of /);
    expect(r.results).toHaveLength(20);
    for (const h of r.results) expect(h.text).toMatch(/\bwalru/i);
    if (name !== 'PostgreSQL') return;
    // PostgreSQL finds what "walruses" begins with by its stem, "walrus" (pg-match.ts): the chunks
    // of the plural, never of "walrus" alone (stem "walru"). The stem's prefix holds exactly those.
    const plural = await search(engine, 'walruses', { prefix: true, top: 20 });
    expect(ftsQuery(plural)).toMatch(/^tops of /);
    for (const h of plural.results) expect(h.text).toMatch(/\bwalruses\b/);
    expect(ids(plural)).toEqual(ids(await exact('walruses', { prefix: true })).slice(0, 20));
    expect(ids(r).slice(0, 10)).toEqual(ids(await exact('walrus', { prefix: true })).slice(0, 10));
  });

  it.skipIf(skip)(
    'keep up with documents added and removed: the new best comes first, from the tops before and after the update',
    async () => {
      const best = join(dir, 'best.md');
      await writeFile(best, '# Walrus\n\nwalrus walrus walrus walrus\n');
      await engine.ingest([best]);
      // Not yet in the tops: the search scores it beside their entries, as the update will.
      const before = await search(engine, 'walrus');
      expect(ftsQuery(before)).toMatch(/^tops of /);
      expect(before.results[0]?.citation.path).toBe(best);
      expect(ids(before)).toEqual(ids(await exact('walrus')).slice(0, 10));
      await settle(engine);
      const after = await search(engine, 'walrus');
      expect(ftsQuery(after)).toMatch(/^tops of /);
      expect(after.results[0]?.citation.path).toBe(best);
      expect(ids(after)).toEqual(ids(await exact('walrus')).slice(0, 10));
      await engine.remove(best);
      const gone = await search(engine, 'walrus');
      expect(gone.results.some((h) => h.citation.path === best)).toBe(false);
      expect(ftsQuery(gone)).toMatch(/^tops of /);
      expect(ids(gone)).toEqual(ids(await exact('walrus')).slice(0, 10));
    },
  );
});

describe('the tops on PostgreSQL', () => {
  it.skipIf(!onPg)(
    'see a chunk that commits after one with a higher rowid (two writers): it waits in their queue, scored by each search',
    async () => {
      cluster ??= await startCluster();
      const url = await cluster.database();
      const pool = await openPool(url);
      try {
        await migratePg(pool);
        const store = new PgStore(pool, url);
        const port = new PgWordTops(pool);
        const model = {
          weights: [1, 1, 1] as [number, number, number],
          avgLength: [1, 1, 4] as [number, number, number],
          k1: 1.2,
          b: 0.75,
        };
        const text = (i: number): NewChunk => ({
          id: `c${i}`,
          ordinal: 0,
          heading: '',
          text: `walrus filler${i}`,
          anchor: { kind: 'lines', start: 1, end: 1 },
          chunker_version: 1,
        });
        for (let i = 0; i < 8; i++) {
          await store.write(async (t) => {
            await t.documents.upsert(docRow(`d${i}`, `/n/d${i}.md`));
            await t.chunks.replace(`d${i}`, [text(i)]);
          });
        }
        expect((await updateTops(port, model, 8, 1, TOPS_K)).kind).toBe('built');
        // A writer takes its rowid, then commits after another writer's chunk and an update that read it.
        const late = await pool.connect();
        await late.query('BEGIN');
        const rowid = Number(
          (await late.query<{ r: string }>("SELECT nextval(pg_get_serial_sequence('chunks', 'rowid')) AS r")).rows[0]!.r,
        );
        await store.write(async (t) => {
          await t.documents.upsert(docRow('d8', '/n/d8.md'));
          await t.chunks.replace('d8', [text(8)]);
        });
        expect((await updateTops(port, model, 9, 1, TOPS_K)).kind).toBe('updated');
        await late.query(
          "INSERT INTO documents (id, path, title, type, content_hash, size, mtime, parser_version, status, original, added_at, updated_at) VALUES ('best', '/n/best.md', '', 'markdown', 'h', 1, 1, 1, 'indexed', 'copy', 1, 1)",
        );
        await late.query(
          `INSERT INTO chunks (rowid, id, doc_id, ordinal, heading, text, anchor, chunker_version, words, title_len, heading_len, body_len)
         OVERRIDING SYSTEM VALUE VALUES ($1, 'best-c', 'best', 0, '', 'walrus walrus walrus walrus', '{}', 1, 'walru:1,2,3,4', 0, 0, 4)`,
          [rowid],
        );
        await late.query('COMMIT');
        late.release();
        // Its rowid is below what the last update read, yet the tops know they have not seen it: a
        // search scores it beside their entries, and the next update takes it in.
        expect(await topsWork(port, model, 10, 1, TOPS_K)).toBe('update');
        const unseen = await new TopsReader(port).best('w:walru', model, { tags: [] }, 5);
        expect(unseen?.rowids[0]).toBe(rowid);
        expect(unseen?.matches).toBe(10);
        expect((await updateTops(port, model, 10, 1, TOPS_K)).kind).toBe('updated');
        const best = await new TopsReader(port).best('w:walru', model, { tags: [] }, 5);
        expect(best?.rowids[0]).toBe(rowid);
        expect(best?.matches).toBe(10);
      } finally {
        await pool.end();
      }
    },
  );
});

describe('TopsBuilder', () => {
  it('keeps the best chunks of each unit by its saturation, and drops the deleted ones', async () => {
    const units = await heavyUnits(
      // In term order, as fts5vocab gives them.
      inOrder([
        { term: 'kbtype1', doc: 500 },
        { term: 'wall', doc: 30 },
        { term: 'walru', doc: 50 },
        { term: 'walrus', doc: 4 },
        { term: 'wombat', doc: 45 },
      ]),
      { word: 30, prefix: 40 },
    );
    // A word is heavy from fewer chunks than a prefix: "wall" is, its prefix "wall" is not; a
    // prefix counts every term it begins ("walru" 54, "wal" 84), and ends where they do ("wom" 45).
    expect([...units].sort()).toEqual([
      'p:wal',
      'p:walr',
      'p:walru',
      'p:wom',
      'p:womb',
      'p:womba',
      'p:wombat',
      'w:wall',
      'w:walru',
      'w:wombat',
    ]);
    const model = { weights: [0.5, 1, 1] as const, avgLength: [2, 2, 10] as const, k1: 3, b: 0.5 };
    const b = new TopsBuilder(units, model);
    for (let r = 1; r <= 200; r++) b.add(r, '', '', `${'walrus '.repeat(r % 5)} wall ${'x '.repeat(r % 7)}`);
    const top = b.tops().get('w:walru')!;
    expect(top.rowids).toHaveLength(128);
    expect(top.matches).toBe(160);
    expect([...top.scores].sort((x, y) => y - x)).toEqual(top.scores);
    // The best: four walruses and no other words but "wall".
    expect(top.rowids[0]).toBe(14);
    const wall = b.tops().get('p:wal')!;
    expect(wall.matches).toBe(200);
    b.prune((r) => r !== 14);
    expect(b.tops().get('w:walru')!.rowids).not.toContain(14);
  });
});

describe('stillValid', () => {
  const model = { weights: [0.5, 1, 1] as const, avgLength: [2, 2, 10] as const, k1: 3, b: 0.5 };
  it('builds the tops again when the units were chosen by other thresholds (or by a kb that kept none for words alone)', () => {
    const state = { upto: 10, chunks: 1000, model, heavy: heavyAt(4000) };
    expect(stillValid(state, model, 1000, heavyAt(4000))).toBe(true);
    expect(stillValid(state, model, 1000, heavyAt(2000))).toBe(false);
    expect(stillValid({ upto: 10, chunks: 1000, model }, model, 1000, heavyAt(4000))).toBe(false);
    expect(heavyAt(4000)).toEqual({ word: 1000, prefix: 4000 });
  });
});

async function* inOrder<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}
