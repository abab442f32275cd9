// Reranking: a cross-encoder re-scores the best fused hits and its score is blended with the fused
// rank. The cross-encoder is the test suite's random-weight BERT with a one-logit head: its order means
// nothing, so these tests check the plumbing and the blend, never quality.
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SearchHit, SearchResultSchema } from '../src/shared/wire.js';
import { CrossEncoder } from '../src/worker/embed/cross-encoder.js';
import { modelSpec } from '../src/worker/embed/registry.js';
import { CHUNKER_VERSION } from '../src/worker/version.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import { blend, fusedWeight } from '../src/worker/rerank/blend.js';
import { fingerprintOf } from '../src/worker/vectors/semantic.js';
import { makeTestModel } from './support/make-test-model.js';
import { corporaDir, kb, writeTree } from './helpers.js';
import { parse as parseYaml } from 'yaml';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('rerank tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

const RERANKER = 'ms-marco-MiniLM-L-6-v2';
let work: string;
let ce: string;

beforeAll(async () => {
  if (!hasCorpora) return;
  work = await mkdtemp(join(tmpdir(), 'kb-rerank-'));
  const files: Record<string, string> = { 'notes/walrus.md': '# Walruses\n\nThe walrus swims in the Arctic sea and eats clams.\n' };
  for (let i = 0; i < 60; i++)
    files[`notes/n${i}.txt`] = `Note ${i} about the fox: the quick brown fox number ${i} jumps over ${i % 7} lazy dogs.`;
  await writeTree(work, files);
  ce = makeTestModel({ arch: 'tiny', out: join(work, 'ce'), crossEncoder: true });
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

async function engine(name: string, config: Record<string, unknown> = {}): Promise<Engine> {
  const e = await openEngine({ dataDir: join(work, name), config });
  if ((await e.list()).length === 0) await e.ingest([join(work, 'notes')]);
  return e;
}

function hit(i: number): SearchHit {
  return {
    rank: i + 1,
    chunk_id: `c${i}`,
    doc_id: `d${i}`,
    score: 1 / (i + 1),
    retrieval: { method: 'lexical', lexical_rank: i + 1, lexical_score: 1, vector_rank: null, vector_score: null, fusion_score: null },
    text: `text ${i}`,
    snippet: `text ${i}`,
    snippet_highlights: [],
    matched_terms: [],
    citation: { kind: 'lines', start: 1, end: 1, uri: `file:///n${i}.md#L1`, path: `/n${i}.md` },
    source: { title: `n${i}`, type: 'markdown', tags: [], chunk_index: 0, total_chunks: 1, original: 'copy' },
  };
}

describe('the blend of reranker and fused rank', () => {
  it('keeps the first fused hit first however low the reranker scores it', () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(i));
    const logits = new Map(hits.map((_, i) => [i, i === 0 ? -12 : 12]));
    const out = blend(hits, logits);
    expect(out[0]!.chunk_id).toBe('c0');
    expect(out.map((h) => h.rank)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('lets a strong reranker score lift a deep hit over weakly scored ones', () => {
    const hits = Array.from({ length: 30 }, (_, i) => hit(i));
    const logits = new Map(hits.map((_, i) => [i, i === 24 ? 10 : -10]));
    const out = blend(hits, logits);
    expect(out.findIndex((h) => h.chunk_id === 'c24')).toBe(1);
    const lifted = out[1]!.retrieval.rerank!;
    expect(lifted.fused_rank).toBe(25);
    expect(out[1]!.score).toBeCloseTo(fusedWeight(25) / 25 + (1 - fusedWeight(25)) * lifted.score, 10);
  });

  it('leaves hits without a passage (found by name) where they were', () => {
    const hits = Array.from({ length: 5 }, (_, i) => hit(i));
    const logits = new Map([0, 1, 3, 4].map((i) => [i, i === 4 ? 10 : -10]));
    const out = blend(hits, logits);
    expect(out[2]!.chunk_id).toBe('c2');
    expect(out[2]!.retrieval.rerank).toBeUndefined();
  });
});

describe.skipIf(!hasCorpora)('reranking searches', () => {
  it('keeps the fingerprint registry models always had (no reindex on upgrade)', () => {
    const { repo: _r, revision: _v, files: _f, ...spec } = modelSpec('all-MiniLM-L6-v2')!;
    expect(fingerprintOf(spec)).toBe(
      JSON.stringify({ model: 'all-MiniLM-L6-v2', dimension: 384, pooling: 'mean', query: '', passage: '', chunker: CHUNKER_VERSION }),
    );
  });

  it('cuts a pair to the token budget, keeping the closing [SEP] and the segment ids', async () => {
    const model = await CrossEncoder.load(ce, 'ce', 512);
    try {
      const pair = model.encodePair('quick fox', 'word '.repeat(200), 24);
      expect(pair.ids).toHaveLength(24);
      expect(pair.ids[0]).toBe(101);
      expect(pair.ids.at(-1)).toBe(102);
      expect(pair.types.slice(0, 4)).toEqual([0, 0, 0, 0]);
      expect(pair.types.at(-1)).toBe(1);
      const scores = await model.score('quick fox', ['the quick brown fox', 'clams'], 64);
      expect(scores).toHaveLength(2);
      expect(scores.every(Number.isFinite)).toBe(true);
    } finally {
      await model.close();
    }
  });

  it('says how to get a reranker, and answers in fused order meanwhile', async () => {
    const e = await engine('none');
    try {
      const plain = await e.search({ query: 'fox', top: 5 });
      const r = await e.search({ query: 'fox', top: 5, rerank: true });
      expect(r.rerank).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/kb models pull ms-marco-MiniLM-L-6-v2/) });
      expect(r.results.map((h) => h.chunk_id)).toEqual(plain.results.map((h) => h.chunk_id));
    } finally {
      e.close();
    }
  });

  it('re-scores the best rerank.candidates fused hits and returns the top of them', async () => {
    const e = await engine('registry', { rerank: { candidates: 20 } });
    try {
      await e.importModel(ce, RERANKER);
      expect((await e.listModels()).models.find((m) => m.id === RERANKER)).toMatchObject({ kind: 'reranker', installed: true });
      const fused = await e.search({ query: 'fox', top: 20 });
      const r = SearchResultSchema.parse(await e.search({ query: 'fox', top: 5, rerank: true, explain: true }));
      expect(r.rerank).toEqual({ status: 'ok' });
      expect(r.results).toHaveLength(5);
      expect(r.results[0]!.retrieval.rerank?.fused_rank).toBe(1);
      for (const h of r.results) {
        const rr = h.retrieval.rerank!;
        expect(fused.results[rr.fused_rank - 1]!.chunk_id).toBe(h.chunk_id);
        expect(h.score).toBeCloseTo(fusedWeight(rr.fused_rank) / rr.fused_rank + (1 - fusedWeight(rr.fused_rank)) * rr.score, 10);
      }
      const scores = r.results.map((h) => h.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect((await e.search({ query: 'fox', top: 5 })).rerank).toBeUndefined();
    } finally {
      e.close();
    }
  });

  it('reranks by default with search.rerank, and not with rerank: false', async () => {
    const e = await engine('registry', { search: { rerank: true } });
    try {
      expect((await e.search({ query: 'fox' })).rerank).toEqual({ status: 'ok' });
      const off = await e.search({ query: 'fox', rerank: false });
      expect(off.rerank).toBeUndefined();
      expect(off.results[0]!.retrieval.rerank).toBeUndefined();
      expect((await e.search({ query: '' })).rerank).toBeUndefined();
    } finally {
      e.close();
    }
  });

  it('imports any one-label cross-encoder under a name, and kb models use makes it the reranker', async () => {
    const e = await engine('own');
    try {
      expect(await e.importModel(ce, 'my-ce')).toMatchObject({ id: 'my-ce', kind: 'reranker', source: 'imported' });
      expect(await e.useModel('my-ce')).toMatchObject({ kind: 'reranker', model: 'my-ce' });
      const config = readFileSync(join(work, 'own', 'config.yaml'), 'utf8');
      // In the commented file a new data dir starts from (kb init's).
      expect(config.startsWith('# kb configuration.')).toBe(true);
      expect(parseYaml(config)).toMatchObject({ rerank: { model: 'my-ce' }, search: { rerank: true } });
      await expect(e.useModel('my-ce-missing')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      const nli = makeTestModel({ arch: 'tiny', out: join(work, 'nli'), crossEncoder: true });
      const cfg = JSON.parse(readFileSync(join(nli, 'config.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(nli, 'config.json'), JSON.stringify({ ...cfg, id2label: { 0: 'contradiction', 1: 'entailment', 2: 'neutral' } }));
      await expect(e.importModel(nli, 'nli')).rejects.toMatchObject({ code: 'MODEL_INVALID', message: expect.stringMatching(/3 labels/) });
    } finally {
      e.close();
    }
    // An embedding model imported as a reranker fails before anything is installed.
    const other = await engine('own');
    try {
      await expect(other.importModel(join(work, 'ce'), 'all-MiniLM-L6-v2')).rejects.toMatchObject({ code: 'MODEL_INVALID' });
    } finally {
      other.close();
    }
  });

  it('says a broken reranker failed to load, and answers in fused order', async () => {
    const e = await engine('broken', { search: { rerank: true } });
    try {
      await e.importModel(ce, RERANKER);
      writeFileSync(join(work, 'broken', 'models', RERANKER, 'onnx', 'model.onnx'), Buffer.alloc(4096, 1));
      const r = await e.search({ query: 'fox' });
      expect(r.rerank).toMatchObject({ status: 'unavailable', reason: expect.stringMatching(/failed to load.*not a usable ONNX model/) });
      expect(r.results.length).toBeGreaterThan(0);
    } finally {
      e.close();
    }
  });

  it('shows the reranker score with kb search --rerank --explain', () => {
    const env = { KB_DATA_DIR: join(work, 'registry'), KB_CONFIG: join(work, 'none.yaml') };
    const out = kb(['search', 'fox', '--rerank', '--explain', '--top', '3'], { env });
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/rerank 0\.\d{3} \(logit -?\d+\.\d\d, fused #1\)/);
    const json = kb(['search', 'fox', '--no-rerank', '--json'], { env, cwd: work }).json() as { rerank?: unknown };
    expect(json.rerank).toBeUndefined();
  });
});
