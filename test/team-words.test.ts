// A team's reader asks whether a word is held of the passages they may read (issue 50); where the word
// is heavy, its kept tops answer first (search/pg-word-stats.ts occurs): a readable chunk among them
// says yes, none says nothing and the word index is asked. Either way a word only others' documents
// hold is no word for them.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actingFor } from '../src/worker/acting.js';
import { openEngine, type Engine } from '../src/worker/index.js';
import { openPool } from '../src/worker/store/postgres/connect.js';
import { PG_SCORING_COST } from '../src/worker/search/pg-word-source.js';
import { writeTree } from './helpers.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';

const onPg = postgresAvailable();
const NOTES = 30;

describe.skipIf(!onPg)('a team reader’s words, the heavy ones with their tops kept', () => {
  let cluster: PgCluster;
  let url: string;
  let dir: string;
  let engine: Engine;

  beforeAll(async () => {
    cluster = await startCluster();
    url = await cluster.database();
    dir = await mkdtemp(join(tmpdir(), 'kb-team-words-'));
    const files: Record<string, string> = {};
    for (let i = 0; i < NOTES; i++) {
      files[`team/note-${i}.md`] = `# Note ${i}\n\nThe heron release needs a changelog from blortech, step ${i}.\n`;
      files[`private/diary-${i}.md`] =
        `# Diary ${i}\n\nProject blorptech is secret: blorptech ${'heron '.repeat(1 + (i % 4))}at the pond.\n`;
    }
    await writeTree(dir, files);
    // Units of 4 chunks and more, on indexes of 20 chunks and more: both words here keep tops.
    engine = await openEngine({ dataDir: join(dir, 'data'), config: { store: { url }, search: { tops_min_df: 4 * PG_SCORING_COST } } });
    await engine.addCollection(join(dir, 'team'), { name: 'team' });
    await engine.addCollection(join(dir, 'private'), { name: 'private' });
    await engine.accounts.addUser('alice', 'reader');
    await engine.accounts.addUser('bob', 'reader');
    await engine.accounts.grant('team', 'alice');
    await engine.accounts.grant('private', 'bob');
    for (let w = engine.backgroundWork(); w; w = engine.backgroundWork()) await w;
  }, 120_000);
  afterAll(async () => {
    engine?.close();
    cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('corrects a word only others read, finds one they share, and never shows the others’ passages', async () => {
    const pool = await openPool(url);
    try {
      const units = (await pool.query<{ unit: string }>('SELECT unit FROM word_tops')).rows.map((r) => r.unit);
      expect(units).toEqual(expect.arrayContaining(['w:blorptech', 'w:heron']));
    } finally {
      await pool.end();
    }
    const as = (user: string, query: string) => actingFor(user, () => engine.search({ query, mode: 'lexical' }));
    const paths = (r: Awaited<ReturnType<typeof as>>): string[] => [
      ...new Set(r.results.map((h) => h.citation.path.slice(dir.length + 1).split('/')[0] ?? '')),
    ];

    const secret = await as('alice', 'blorptech');
    expect(secret.corrected?.query).toBe('blortech');
    expect(paths(secret)).toEqual(['team']);
    const his = await as('bob', 'blorptech');
    expect(his.corrected).toBeUndefined();
    expect(paths(his)).toEqual(['private']);

    // "heron" is in both; the tops' best chunks are bob's (more herons a diary), yet alice holds it too.
    const shared = await as('alice', 'heron');
    expect(shared.corrected).toBeUndefined();
    expect(shared.results).toHaveLength(Math.min(NOTES, 10));
    expect(paths(shared)).toEqual(['team']);
    // Asked again (the answer is kept per user), the same.
    expect((await as('alice', 'blorptech')).corrected?.query).toBe('blortech');
    expect((await as('bob', 'blorptech')).corrected).toBeUndefined();
  });
});
