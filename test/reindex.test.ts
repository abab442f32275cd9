// Binding the index to one embedding model, and `kb reindex` switching models: a clear error on a
// mismatch, searches that keep answering while the new table is built, an atomic switch, resume after
// an interruption. Both "models" are the random-weight minilm-l6 test graph installed under two names.
import { MAX_TOP } from '../src/shared/search-limits.js';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReindexResultSchema, SearchResultSchema } from '../src/shared/wire.js';
import { openEngine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { corporaDir, kbAsync, writeTree } from './helpers.js';
import { parse as parseYaml } from 'yaml';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('reindex tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

const MINILM = 'all-MiniLM-L6-v2';
const BGE = 'bge-small-en-v1.5';
let work: string;
let data: string;
let chunks: number;

/** Enough notes for several embedding rounds (128 chunks each), so a search can run between them. */
function notes(): Record<string, string> {
  const files: Record<string, string> = { 'notes/git.md': '# Git\n\nInstalling git on Debian: apt-get install git.\n' };
  for (let i = 0; i < 300; i++) files[`notes/n${i}.txt`] = `Note ${i} about topic ${i % 17}: the quick brown fox number ${i}.`;
  return files;
}

beforeAll(async () => {
  if (!hasCorpora) return;
  work = await mkdtemp(join(tmpdir(), 'kb-reindex-'));
  data = join(work, 'data');
  await writeTree(work, notes());
  const model = makeTestModel({ arch: 'minilm-l6', out: join(work, 'model') });
  const engine = await openEngine({ dataDir: data });
  try {
    await engine.importModel(model, MINILM);
    await engine.importModel(model, BGE);
    const s = await engine.ingest([join(work, 'notes')]);
    chunks = (await engine.list()).reduce((n, d) => n + d.chunks, 0);
    expect(s.embedded).toBe(chunks);
    expect(chunks).toBeGreaterThan(256);
  } finally {
    engine.close();
  }
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe.skipIf(!hasCorpora)('the embedding model binding', () => {
  it('reconciles an unchanged index without embedding anything', async () => {
    const engine = await openEngine({ dataDir: data });
    try {
      expect(await engine.syncVectors()).toEqual({ embedded: 0, deleted: 0 });
    } finally {
      engine.close();
    }
  });

  it('refuses vectors from another model with an error naming kb reindex, and words still work', async () => {
    const engine = await openEngine({ dataDir: data, config: { embedding: { model: BGE } } });
    try {
      const r = await engine.search({ query: 'installing git' });
      expect(r.vector?.status).toBe('unavailable');
      expect(r.vector?.reason).toMatch(new RegExp(`made with ${MINILM}.*asks for ${BGE}.*kb reindex`));
      expect(r.results[0]!.citation.path).toBe(join(work, 'notes/git.md'));
      await writeTree(work, { 'extra/new.md': '# New\n\nA note added while the models disagree.\n' });
      const s = await engine.ingest([join(work, 'extra')]);
      expect(s).toMatchObject({ added: 1, vector: { status: 'unavailable' } });
      expect(s.embedded ?? 0).toBe(0);
      expect((await engine.search({ query: 'disagree', mode: 'lexical' })).results).toHaveLength(1);
      const d = await engine.doctor();
      expect(d.checks.find((c) => c.name === 'embedding model')?.detail).toMatch(/kb reindex/);
    } finally {
      engine.close();
    }
  });

  it('keeps answering from the old vectors while reindex builds the new table, and resumes after an interruption', async () => {
    const reader = await openEngine({ dataDir: data }); // another process's view: still on MiniLM
    const builder = await openEngine({ dataDir: data });
    try {
      const total = chunks + 1; // with extra/new.md
      const during: Promise<unknown>[] = [];
      const ctl = new AbortController();
      const first = await builder.reindex({
        model: BGE,
        signal: ctl.signal,
        onProgress: (p) => {
          if (p.done === 0 || during.length > 0) return;
          during.push(
            reader.search({ query: 'quick brown fox', top: 5 }).then((r) => {
              expect(r.vector).toEqual({ status: 'ok' });
              expect(r.results).toHaveLength(5);
            }),
          );
          ctl.abort();
        },
      });
      await Promise.all(during);
      expect(during).toHaveLength(1);
      expect(first).toMatchObject({ model: BGE, previous: MINILM, cancelled: true, config_updated: null });
      expect(first.embedded).toBeGreaterThan(0);
      expect(first.embedded).toBeLessThan(total);
      // Still bound to MiniLM: nothing switched.
      expect((await reader.search({ query: 'fox', mode: 'vector', top: 3 })).vector).toEqual({ status: 'ok' });

      const second = await builder.reindex({ model: BGE });
      expect(ReindexResultSchema.safeParse(second).success).toBe(true);
      expect(second).toMatchObject({ model: BGE, cancelled: false, resumed: first.embedded, embedded: total - first.embedded });
      expect(second.config_updated).toBe(join(data, 'config.yaml'));
      expect(parseYaml(readFileSync(join(data, 'config.yaml'), 'utf8'))).toMatchObject({
        embedding: { provider: 'onnx', model: 'bge-small-en-v1.5' },
      });
      // The builder searches with the new model at once.
      const after = await builder.search({ query: 'fox', mode: 'vector', top: MAX_TOP });
      expect(after.vector).toEqual({ status: 'ok' });
      expect(after.results).toHaveLength(Math.min(total, MAX_TOP));
      expect(await builder.vectorIds()).toHaveLength(total);
      // The reader was opened for MiniLM, whose vectors are gone now: it says so instead of failing.
      const stale = await reader.search({ query: 'fox' });
      expect(stale.vector?.reason).toMatch(/made with bge-small-en-v1\.5.*kb reindex/);
      expect(stale.results.length).toBeGreaterThan(0);
    } finally {
      reader.close();
      builder.close();
    }
  });

  it('is what the CLI uses next time, from the updated config', async () => {
    const env = { KB_DATA_DIR: data, KB_CONFIG: join(work, 'none.yaml') };
    const r = await kbAsync(['search', 'fox', '--mode', 'vector', '--json'], { env });
    expect(r.code).toBe(0);
    expect(SearchResultSchema.parse(r.json()).vector).toEqual({ status: 'ok' });
    const again = await kbAsync(['reindex', '--json'], { env });
    expect(again.code).toBe(0);
    expect(ReindexResultSchema.parse(again.json())).toMatchObject({
      model: BGE,
      previous: BGE,
      resumed: 0,
      embedded: chunks + 1,
      config_updated: null,
    });
  });

  it('rejects an unknown or missing model and changes nothing', async () => {
    const env = { KB_DATA_DIR: data, KB_CONFIG: join(work, 'none.yaml') };
    const unknown = await kbAsync(['reindex', '--model', 'nope', '--json'], { env });
    expect(unknown.code).not.toBe(0);
    expect(unknown.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT', message: expect.stringMatching(/unknown model nope/) } });
    const missing = await kbAsync(['reindex', '--model', 'multilingual-e5-small', '--json'], { env });
    expect(missing.json()).toMatchObject({
      error: { code: 'MODEL_MISSING', message: expect.stringMatching(/kb models pull multilingual-e5-small/) },
    });
    const r = await kbAsync(['search', 'fox', '--json'], { env });
    expect(SearchResultSchema.parse(r.json()).vector).toEqual({ status: 'ok' });
  });

  it('builds the approximate index in the background once the table passes ann_min_rows', async () => {
    const engine = await openEngine({ dataDir: data, config: { embedding: { model: BGE, ann_min_rows: 100 } } });
    try {
      const before = await engine.doctor();
      expect(before.checks.find((c) => c.name === 'vector index')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/no index yet/),
      });
      await engine.syncVectors();
      await engine.backgroundWork();
      const after = await engine.doctor();
      expect(after.checks.find((c) => c.name === 'vector index')).toMatchObject({
        status: 'ok',
        detail: `IVF_PQ over ${chunks + 1} vectors, 0 added since (searched exactly)`,
      });
      const r = await engine.search({ query: 'quick brown fox', mode: 'vector', top: 5 });
      expect(r.results).toHaveLength(5);
    } finally {
      engine.close();
    }
  });
});
