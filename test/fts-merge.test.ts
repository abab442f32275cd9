// The word indexes merged whole in the background (store/fts-merge.ts, maintenance/merge-upkeep.ts):
// after writes that changed enough of the index, and only then; the merged index finds what the
// unmerged one found, and FTS5 finds it sound.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine, type Engine } from '../src/worker/index.js';
import { DELETED_MIN, deletedSince, FTS_TABLES } from '../src/worker/store/fts-merge.js';

const CHUNKING = { target_chars: 60, max_chars: 200, min_chars: 10, note_max_chars: 60, overlap_chars: 0 };
const PARAS = DELETED_MIN + 1000;

const para = (i: number, version: number): string => `Entry ${i} tells of ${i % 3 === 0 ? 'herons' : 'egrets'} seen ${version} times.`;
const text = (version: number, edited: (i: number) => boolean): string =>
  ['# Birds', ...Array.from({ length: PARAS }, (_, i) => para(i, edited(i) ? version : 0))].join('\n\n');

let dir: string;
let engine: Engine;
let file: string;

async function settle(): Promise<void> {
  for (let w = engine.backgroundWork(); w; w = engine.backgroundWork()) await w;
}

function inspect(): { segments: number; marked: boolean } {
  const db = new Database(join(dir, 'data', 'kb.sqlite'), { readonly: true });
  try {
    const segments = (db.prepare('SELECT count(DISTINCT segid) AS n FROM chunks_fts_idx').get() as { n: number }).n;
    const marked = db.prepare("SELECT 1 FROM meta WHERE key = 'fts_merged'").get() !== undefined;
    return { segments, marked };
  } finally {
    db.close();
  }
}

function integrityOk(): void {
  const db = new Database(join(dir, 'data', 'kb.sqlite'));
  try {
    for (const t of FTS_TABLES) db.prepare(`INSERT INTO ${t}(${t}) VALUES('integrity-check')`).run();
  } finally {
    db.close();
  }
}

const heronCount = async (): Promise<number> => (await engine.search({ query: 'herons', mode: 'lexical', top: 5 })).total_matches;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kb-merge-'));
  file = join(dir, 'birds.md');
  await writeFile(
    file,
    text(0, () => false),
  );
  engine = await openEngine({ dataDir: join(dir, 'data'), config: { chunking: CHUNKING } });
}, 60_000);

afterAll(async () => {
  engine.close();
  await rm(dir, { recursive: true, force: true });
});

describe('merging the word indexes', () => {
  it('leaves new documents to FTS5, however many', async () => {
    await engine.ingest([file]);
    await settle();
    expect(inspect().marked).toBe(false);
    expect(await heronCount()).toBe(Math.ceil(PARAS / 3));
  }, 60_000);

  it('leaves a small change to FTS5 alone', async () => {
    const small = join(dir, 'small.md');
    await writeFile(small, ['# More birds', ...Array.from({ length: 20 }, (_, i) => para(i, 1))].join('\n\n'));
    await engine.ingest([small]);
    await settle();
    const { segments, marked } = inspect();
    expect(marked).toBe(false);
    expect(segments).toBeGreaterThan(1);
  }, 60_000);

  it('merges every index whole once the chunks deleted since reach the threshold, losing nothing', async () => {
    // The big file edited: its chunks written again, the old ones deleted.
    await writeFile(
      file,
      text(2, (i) => i % 2 === 0),
    );
    await engine.ingest([file]);
    const before = await engine.search({ query: 'egrets seen 2 times', mode: 'lexical', top: 20 });
    await settle();
    expect(inspect()).toEqual({ segments: 1, marked: true });
    integrityOk();
    const after = await engine.search({ query: 'egrets seen 2 times', mode: 'lexical', top: 20 });
    expect(after.results.map((h) => h.chunk_id)).toEqual(before.results.map((h) => h.chunk_id));
    expect(await heronCount()).toBe(Math.ceil(PARAS / 3) + 7);
  }, 60_000);
});

describe('chunk rowids', () => {
  it('are never given twice: the last document written, edited, gets rowids past every one before', async () => {
    const rowids = (): number[] => {
      const db = new Database(join(dir, 'data', 'kb.sqlite'), { readonly: true });
      try {
        const q = 'SELECT c.rowid AS r FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = ?';
        return (db.prepare(q).all(file) as { r: number }[]).map((x) => x.r);
      } finally {
        db.close();
      }
    };
    const old = rowids();
    const db = new Database(join(dir, 'data', 'kb.sqlite'), { readonly: true });
    // The big file was written last: its rowids are the highest.
    expect(Math.max(...old)).toBe((db.prepare('SELECT max(rowid) AS m FROM chunks').get() as { m: number }).m);
    db.close();
    await writeFile(
      file,
      text(3, (i) => i % 5 === 0),
    );
    await engine.ingest([file]);
    expect(Math.min(...rowids())).toBeGreaterThan(Math.max(...old));
  }, 60_000);
});

describe('deletedSince', () => {
  it('counts the chunks deleted since the mark, not those written', () => {
    expect(deletedSince({ last: 100, count: 100 }, { last: 150, count: 120 })).toBe(30);
    expect(deletedSince({ last: 0, count: 0 }, { last: 900, count: 900 })).toBe(0);
    expect(deletedSince({ last: 0, count: 0 }, { last: 900, count: 600 })).toBe(300);
    expect(deletedSince({ last: 100, count: 100 }, { last: 100, count: 100 })).toBe(0);
  });
});
