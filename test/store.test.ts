import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDb, schemaVersion } from '../src/worker/store/db.js';
import { MIGRATIONS } from '../src/worker/store/migrations.js';
import { averagePrecision, ndcg, recallAt, reciprocalRank } from '../src/worker/eval/metrics.js';
import { engineIn, tempDir, writeTree } from './helpers.js';

describe('store', () => {
  it('migrates a new database to the latest schema, in WAL mode, and reopens without re-running', async () => {
    const file = join(await tempDir(), 'kb.sqlite');
    const db = openDb(file);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    const again = openDb(file);
    expect(schemaVersion(again)).toBe(MIGRATIONS.at(-1)!.version);
    again.close();
  });

  it('refuses an index written by a newer kb', async () => {
    const file = join(await tempDir(), 'kb.sqlite');
    const raw = new Database(file);
    raw.pragma('user_version = 999');
    raw.close();
    expect(() => openDb(file)).toThrow(/newer kb/);
  });

  it('reports a file that is not a database as DB_CORRUPT', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'kb.sqlite': 'this is not sqlite at all, just text that is long enough to be a header' });
    expect(() => openDb(join(dir, 'kb.sqlite'))).toThrow(expect.objectContaining({ code: 'DB_CORRUPT' }));
  });

  it('keeps both full-text indexes in step with chunks through edits and removals', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'a.md': 'apple banana', 'b.md': 'cherry' });
    const engine = await engineIn();
    await engine.ingest([dir]);
    await writeTree(dir, { 'a.md': 'durian elderberry' });
    await engine.ingest([dir]);
    await engine.remove(join(dir, 'b.md'));
    const doctor = await engine.doctor();
    expect(doctor.checks.find((c) => c.name === 'full-text index')?.status).toBe('ok');
    expect((await engine.search({ query: 'banana' })).results).toHaveLength(0);
    expect((await engine.search({ query: 'cherry' })).results).toHaveLength(0);
    expect((await engine.search({ query: 'elderberry' })).results).toHaveLength(1);
  });

  it('gives each hit the snippet and matched words of its own chunk', async () => {
    // Regression: FTS5 ignores `rowid = ?` bound as a JS number (REAL), which once mixed up rows.
    const dir = await tempDir();
    await writeTree(dir, { 'one.md': 'config appears here once', 'two.md': 'nothing relevant', 'three.py': 'def load_config():\n    return config\n' });
    const engine = await engineIn();
    await engine.ingest([dir]);
    const r = await engine.search({ query: 'config' });
    for (const h of r.results) expect(h.text).toContain(h.snippet.replace(/^…|…$/g, '').slice(0, 10));
  });
});

describe('metrics', () => {
  it('computes nDCG, recall, MRR and AP by their textbook definitions', () => {
    const gains = new Map([['a', 3], ['b', 1]]);
    // ideal: a then b; got: x, a, b
    const ideal = (2 ** 3 - 1) / 1 + (2 ** 1 - 1) / Math.log2(3);
    const got = (2 ** 3 - 1) / Math.log2(3) + (2 ** 1 - 1) / 2;
    expect(ndcg(['x', 'a', 'b'], gains, 10)).toBeCloseTo(got / ideal, 10);
    expect(ndcg(['a', 'b'], gains, 10)).toBe(1);
    expect(recallAt(['x', 'a'], new Set(['a', 'b']), 2)).toBe(0.5);
    expect(reciprocalRank(['x', 'y', 'a'], new Set(['a']))).toBeCloseTo(1 / 3);
    expect(averagePrecision(['a', 'x', 'b'], new Set(['a', 'b']))).toBeCloseTo((1 + 2 / 3) / 2);
  });
});
