import Database from 'better-sqlite3';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { schemaVersion } from '../src/worker/store/db.js';
import { openDb } from '../src/worker/store/open-db.js';
import { MIGRATIONS } from '../src/worker/store/migrations/index.js';
import { DOC_TYPE_TABLE } from '../src/shared/doc-types.js';
import { averagePrecision, ndcg, recallAt, reciprocalRank } from '../src/worker/eval/metrics.js';
import { engineIn, repoRoot, tempDir, writeTree } from './helpers.js';

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

  it('opens an index kb wrote at schema 1 and migrates it to the newest, keeping and finding what it held', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'docs/otter-notes.md': '# Otters\n\nRiver otters hold paws while they sleep.\n', 'data/.keep': '' });
    const path = join(dir, 'docs', 'otter-notes.md');
    const raw = new Database(join(dir, 'data', 'kb.sqlite'));
    raw.exec(MIGRATIONS[0]!.sql);
    raw.pragma('user_version = 1');
    raw
      .prepare(
        `INSERT INTO documents (id, path, root, title, type, lang, content_hash, size, mtime, page_count, duration, parser_version, status, error, original, added_at, updated_at)
      VALUES ('0123456789abcdef0123', ?, ?, 'Otters', 'markdown', 'en', 'x', 60, 0, NULL, NULL, 1, 'indexed', NULL, 'reference', 0, 0)`,
      )
      .run(path, join(dir, 'docs'));
    raw.prepare("INSERT INTO tags (id, name) VALUES (1, 'wildlife')").run();
    raw.prepare("INSERT INTO document_tags (doc_id, tag_id) VALUES ('0123456789abcdef0123', 1)").run();
    raw
      .prepare(
        `INSERT INTO chunks (id, doc_id, ordinal, heading, text, anchor, chunker_version)
      VALUES ('c1', '0123456789abcdef0123', 0, 'Otters', 'River otters hold paws while they sleep.', '{"kind":"lines","start":1,"end":3}', 1)`,
      )
      .run();
    raw.close();

    const engine = await engineIn(join(dir, 'data'));
    try {
      const words = await engine.search({ query: 'paws sleep', mode: 'lexical', tags: ['wildlife'] });
      expect(words.results.map((h) => h.citation.path)).toEqual([path]);
      // Migration 6 filled the names table from the rows already there.
      expect((await engine.search({ query: 'otter-notes', mode: 'lexical' })).results[0]?.citation.path).toBe(path);
      // What migration 8 added works on the migrated index: a new sheet gets its type token.
      await writeTree(dir, { 'docs/birds.csv': 'bird,colour\nkingfisher,blue\n' });
      await engine.ingest([join(dir, 'docs', 'birds.csv')]);
      expect((await engine.search({ query: 'kingfisher', mode: 'lexical', type: 'sheet' })).results).toHaveLength(1);
    } finally {
      engine.close();
    }
    const after = new Database(join(dir, 'data', 'kb.sqlite'), { readonly: true });
    expect(schemaVersion(after)).toBe(MIGRATIONS.at(-1)!.version);
    expect(after.prepare('SELECT count(*) AS n FROM documents WHERE author IS NULL').get()).toEqual({ n: 2 });
    after.close();
  });

  it('has one migration per version, in order, each its own literal SQL', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    const files = readdirSync(join(repoRoot, 'src/worker/store/migrations')).filter((f) => /^\d{3}-.+\.ts$/.test(f));
    expect(files.map((f) => Number(f.slice(0, 3)))).toEqual(MIGRATIONS.map((m) => m.version));
    for (const f of files) {
      const text = readFileSync(join(repoRoot, 'src/worker/store/migrations', f), 'utf8');
      // Literal SQL: no interpolation, no imports but the type, no string building.
      expect(text).not.toMatch(/\$\{|\.replace\(|\+ *['`]/);
      expect(text.match(/^import .*$/gm)).toEqual(["import type { Migration } from './migration.js';"]);
    }
  });

  it("writes each type's filter term with the number shared/doc-types.ts gives it, for every type", async () => {
    const db = openDb(join(await tempDir(), 'kb.sqlite'));
    for (const trigger of ['chunks_ai', 'chunks_au']) {
      const { sql } = db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').get(trigger) as { sql: string };
      const tokens = Object.fromEntries([...sql.matchAll(/WHEN '(\w+)' THEN (\d+)/g)].map((m) => [m[1], Number(m[2])]));
      expect(tokens, trigger).toEqual(Object.fromEntries(DOC_TYPE_TABLE.map((t) => [t.id, t.token])));
    }
    db.close();
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
    await writeTree(dir, {
      'one.md': 'config appears here once',
      'two.md': 'nothing relevant',
      'three.py': 'def load_config():\n    return config\n',
    });
    const engine = await engineIn();
    await engine.ingest([dir]);
    const r = await engine.search({ query: 'config' });
    for (const h of r.results) expect(h.text).toContain(h.snippet.replace(/^…|…$/g, '').slice(0, 10));
  });
});

describe('metrics', () => {
  it('computes nDCG, recall, MRR and AP by their textbook definitions', () => {
    const gains = new Map([
      ['a', 3],
      ['b', 1],
    ]);
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
