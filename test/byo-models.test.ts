// Bring your own model: embeddings from Ollama (the stub server on 127.0.0.1), any sentence-transformers
// folder imported under a name of its own, and switching between them with searches answering
// throughout. Models are the test suite's own random-weight graphs: plumbing, never meaning.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SearchResultSchema } from '../src/shared/wire.js';
import { Embedder } from '../src/worker/embed/embedder.js';
import { ModelStore } from '../src/worker/models/embedding-store.js';
import { readManifest } from '../src/worker/embed/resolve.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import Database from 'better-sqlite3';
import { makeTestModel } from './support/make-test-model.js';
import { type OllamaStub, startOllamaStub } from './support/ollama-stub.js';
import { corporaDir, kb, kbAsync, writeTree } from './helpers.js';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('bring-your-own-model tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

const NOMIC = 'ollama:nomic-embed-text';
let work: string;
let stub: OllamaStub;
/** A tiny sentence-transformers folder (mean pooling), imported as tiny-mean where a test needs an onnx model. */
let tinySt: string;
/** A 64-d [CLS]-pooled folder with query/document prompts and a 128-token limit. */
let cls64: string;

/** Enough notes for several embedding rounds, so searches can run between them. */
function notes(): Record<string, string> {
  const files: Record<string, string> = { 'notes/walrus.md': '# Walruses\n\nThe walrus swims in the Arctic sea and eats clams.\n' };
  for (let i = 0; i < 300; i++) files[`notes/n${i}.txt`] = `Note ${i} about topic ${i % 17}: the quick brown fox number ${i}.`;
  return files;
}

async function engine(name: string, config: Record<string, unknown> = {}): Promise<Engine> {
  return openEngine({ dataDir: join(work, name), config: { ask: { ollama_host: stub.url }, ...config } });
}

beforeAll(async () => {
  if (!hasCorpora) return;
  work = await mkdtemp(join(tmpdir(), 'kb-byo-'));
  await writeTree(work, notes());
  stub = await startOllamaStub({ models: ['nomic-embed-text:latest', 'llama3.2:latest'] });
  tinySt = makeTestModel({ arch: 'tiny', out: join(work, 'tiny-st'), sentenceTransformers: { pooling: 'mean' } });
  cls64 = makeTestModel({
    arch: 'small64',
    out: join(work, 'cls64'),
    sentenceTransformers: { pooling: 'cls', prompts: { query: 'query: ', document: 'passage: ' }, maxSeqLength: 128 },
  });
});
afterAll(async () => {
  await stub?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

/** The index's binding (meta embedding.binding / embedding.pending), read beside the engine. */
function binding(name: string, slot: 'binding' | 'pending' = 'binding'): { model: string; fingerprint: string } | null {
  const db = new Database(join(work, name, 'kb.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(`embedding.${slot}`) as { value: string | null } | undefined;
    return row?.value ? (JSON.parse(row.value) as { model: string; fingerprint: string }) : null;
  } finally {
    db.close();
  }
}

const embedCalls = (): { input: string[] }[] => stub.calls.filter((c) => c.path === '/api/embed').map((c) => c.body as { input: string[] });

describe.skipIf(!hasCorpora)('embeddings from Ollama', () => {
  it('indexes and searches through /api/embed, with the prefixes nomic-embed-text expects, in batches', async () => {
    stub.calls.splice(0);
    const e = await engine('ollama', { embedding: { provider: 'ollama', model: 'nomic-embed-text' } });
    try {
      const s = await e.ingest([join(work, 'notes')]);
      const chunks = (await e.list()).reduce((n, d) => n + d.chunks, 0);
      expect(s.vector).toEqual({ status: 'ok' });
      expect(s.embedded).toBe(chunks);
      const calls = embedCalls();
      expect(calls.every((c) => c.input.length <= 64)).toBe(true);
      // Every chunk once, and one probe when the model was opened (which told its dimension).
      const passages = calls.flatMap((c) => c.input).filter((t) => t.startsWith('search_document: '));
      expect(passages.filter((t) => t !== 'search_document: dimension check')).toHaveLength(chunks);
      const r = SearchResultSchema.parse(await e.search({ query: 'walrus arctic' }));
      expect(r.vector).toEqual({ status: 'ok' });
      expect(r.results[0]!.citation.path).toBe(join(work, 'notes/walrus.md'));
      expect(r.results[0]!.retrieval.vector_rank).not.toBeNull();
      expect(embedCalls().at(-1)!.input).toEqual(['search_query: walrus arctic']);
      expect(binding('ollama')).toMatchObject({ model: NOMIC });
      expect(JSON.parse(binding('ollama')!.fingerprint)).toMatchObject({ provider: 'ollama', dimension: 768, query: 'search_query: ' });
    } finally {
      e.close();
    }
  });

  it('answers by words, saying why, while Ollama is down, and by meaning again once it is back', async () => {
    const e = await engine('ollama', { embedding: { provider: 'ollama', model: 'nomic-embed-text' } });
    try {
      stub.set({ models: ['nomic-embed-text:latest'], embed: { downAfter: 0 } });
      const down = await e.search({ query: 'walrus' });
      expect(down.vector?.status).toBe('unavailable');
      expect(down.vector?.reason).toMatch(/Ollama cannot be reached|Ollama is not running/);
      expect(down.results[0]!.citation.path).toBe(join(work, 'notes/walrus.md'));
      stub.set({ models: ['nomic-embed-text:latest'] });
      const back = await e.search({ query: 'walrus' });
      expect(back.vector).toEqual({ status: 'ok' });
    } finally {
      stub.set({ models: ['nomic-embed-text:latest', 'llama3.2:latest'] });
      e.close();
    }
  });

  it('says to pull a model Ollama does not have', async () => {
    const e = await engine('ollama-missing', { embedding: { provider: 'ollama', model: 'mxbai-embed-large' } });
    try {
      await writeTree(join(work, 'one'), { 'a.md': '# A\n\nOne note about herons.\n' });
      const s = await e.ingest([join(work, 'one')]);
      expect(s.vector?.status).toBe('unavailable');
      expect(s.vector?.reason).toMatch(/ollama pull mxbai-embed-large/);
      expect((await e.search({ query: 'herons' })).results).toHaveLength(1);
    } finally {
      e.close();
    }
  });
});

describe.skipIf(!hasCorpora)('switching embedding models', () => {
  it('goes from onnx to Ollama and back, searches answering from the old vectors until each switch', async () => {
    const e = await engine('switch');
    try {
      await e.importModel(tinySt, 'tiny-mean');
      await e.useModel('tiny-mean');
      await e.ingest([join(work, 'notes')]);
      const chunks = (await e.list()).reduce((n, d) => n + d.chunks, 0);
      for (const [to, from] of [
        [NOMIC, 'tiny-mean'],
        ['tiny-mean', NOMIC],
      ] as const) {
        const during: Promise<unknown>[] = [];
        const r = await e.useModel(to, {
          onProgress: (p) => {
            if (p.done > 0 && p.done < p.total) during.push(e.search({ query: 'walrus' }));
          },
        });
        expect(r).toMatchObject({ kind: 'embedding', model: to, previous: from, embedded: chunks, cancelled: false });
        const answered = (await Promise.all(during)) as { vector?: { status: string }; results: { citation: { path: string } }[] }[];
        expect(answered.length).toBeGreaterThan(0);
        for (const a of answered) {
          expect(a.vector?.status).toBe('ok');
          expect(a.results[0]!.citation.path).toBe(join(work, 'notes/walrus.md'));
        }
        expect(binding('switch')?.model).toBe(to);
        expect((await e.search({ query: 'walrus' })).vector).toEqual({ status: 'ok' });
      }
      const config = readFileSync(join(work, 'switch', 'config.yaml'), 'utf8');
      expect(config).toMatch(/provider: onnx/);
      expect(config).toMatch(/model: tiny-mean/);
      // Already in use: nothing is embedded again.
      expect(await e.useModel('tiny-mean')).toMatchObject({ embedded: 0, previous: 'tiny-mean' });
    } finally {
      e.close();
    }
  });

  it('keeps the old table serving when Ollama goes down mid-switch, and resumes when it is back', async () => {
    const e = await engine('switch-down');
    try {
      await e.importModel(tinySt, 'tiny-mean');
      await e.useModel('tiny-mean');
      await e.ingest([join(work, 'notes')]);
      const live = binding('switch-down');
      stub.set({ models: ['nomic-embed-text:latest'], embed: { downAfter: 3 } });
      await expect(e.useModel(NOMIC)).rejects.toMatchObject({ code: 'LLM_UNAVAILABLE', message: expect.stringMatching(/Ollama/) });
      expect(binding('switch-down')).toEqual(live);
      expect(binding('switch-down', 'pending')?.model).toBe(NOMIC);
      const during = await e.search({ query: 'walrus' });
      expect(during.vector).toEqual({ status: 'ok' });
      expect(during.results[0]!.citation.path).toBe(join(work, 'notes/walrus.md'));
      stub.set({ models: ['nomic-embed-text:latest'] });
      const r = await e.useModel(NOMIC);
      // The two batches embedded before the server went away are kept, not embedded again.
      expect(r).toMatchObject({ model: NOMIC, cancelled: false, resumed: 128 });
      expect(binding('switch-down')?.model).toBe(NOMIC);
    } finally {
      stub.set({ models: ['nomic-embed-text:latest', 'llama3.2:latest'] });
      e.close();
    }
  });

  it('refuses an unknown name, a reranker and a malformed Ollama name before anything changes', async () => {
    const e = await engine('switch');
    try {
      const before = binding('switch');
      await expect(e.useModel('nope')).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/unknown model nope.*ollama:<model>/),
      });
      await expect(e.useModel('ollama:')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
      await expect(e.useModel('all-MiniLM-L6-v2')).rejects.toMatchObject({
        code: 'MODEL_MISSING',
        message: expect.stringMatching(/kb models pull all-MiniLM-L6-v2/),
      });
      expect(binding('switch')).toEqual(before);
    } finally {
      e.close();
    }
  });
});

describe.skipIf(!hasCorpora)('any sentence-transformers folder', () => {
  const store = (): ModelStore => new ModelStore(join(work, 'st', 'models'));

  it('reads pooling, prompts, max length and dimension from the folder', async () => {
    const dir = cls64;
    const m = await store().import(dir, 'my-cls');
    expect(m).toMatchObject({
      id: 'my-cls',
      kind: 'embedding',
      source: 'imported',
      repo: dir,
      dimension: 64,
      max_tokens: 128,
      installed: true,
    });
    expect(readManifest(store().pathOf('my-cls'))).toMatchObject({
      kind: 'embedding',
      spec: { pooling: 'cls', normalize: true, maxTokens: 128, queryPrefix: 'query: ', passagePrefix: 'passage: ', dimension: 64 },
    });
    expect(
      store()
        .list()
        .filter((x) => x.source === 'imported')
        .map((x) => x.id),
    ).toEqual(['my-cls']);
  });

  it('pools by the last real token when 1_Pooling says so', async () => {
    const dir = makeTestModel({ arch: 'tiny', out: join(work, 'last'), sentenceTransformers: { pooling: 'last', normalize: false } });
    await store().import(dir, 'my-last');
    const spec = readManifest(store().pathOf('my-last'))!.spec as Parameters<typeof Embedder.load>[1];
    expect(spec).toMatchObject({ pooling: 'last', normalize: false, dimension: 32 });
    const e = await Embedder.load(store().pathOf('my-last'), spec);
    try {
      // Batched with a longer text (padding after the short one), the short text's vector is still its last token's state.
      const [short] = await e.embed(['heron', 'a much longer text about walruses and clams in the arctic'], 'passage');
      const ids = e.encode('heron');
      const session = await ort.InferenceSession.create(join(store().pathOf('my-last'), 'onnx', 'model.onnx'));
      const n = ids.length;
      const out = await session.run({
        input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, n]),
        attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
        token_type_ids: new ort.Tensor('int64', new BigInt64Array(n), [1, n]),
      });
      const hidden = out.last_hidden_state!.data as Float32Array;
      const expected = Array.from(hidden.slice((n - 1) * 32, n * 32));
      Array.from(short!).forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 4));
      await session.release();
    } finally {
      await e.close();
    }
  });

  it('says what is missing or unsupported, and installs nothing then', async () => {
    const bare = makeTestModel({ arch: 'tiny', out: join(work, 'bare') });
    await expect(store().import(bare, 'bare')).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/1_Pooling\/config\.json/),
    });
    const max = makeTestModel({ arch: 'tiny', out: join(work, 'max'), sentenceTransformers: { pooling: 'mean' } });
    const poolingFile = join(max, '1_Pooling', 'config.json');
    writeFileSync(
      poolingFile,
      JSON.stringify({ ...JSON.parse(readFileSync(poolingFile, 'utf8')), pooling_mode_mean_tokens: false, pooling_mode_max_tokens: true }),
    );
    await expect(store().import(max, 'max')).rejects.toMatchObject({
      message: expect.stringMatching(/pools by max.*mean, \[CLS\] or last token/),
    });
    const dense = makeTestModel({ arch: 'tiny', out: join(work, 'dense'), sentenceTransformers: { pooling: 'mean' } });
    const modules = JSON.parse(readFileSync(join(dense, 'modules.json'), 'utf8')) as unknown[];
    writeFileSync(
      join(dense, 'modules.json'),
      JSON.stringify([...modules, { idx: 3, name: '3', path: '2_Dense', type: 'sentence_transformers.models.Dense' }]),
    );
    await expect(store().import(dense, 'dense')).rejects.toMatchObject({
      message: expect.stringMatching(/Dense layers.*sentence_embedding/),
    });
    const noTok = makeTestModel({ arch: 'tiny', out: join(work, 'notok'), sentenceTransformers: { pooling: 'mean' } });
    rmSync(join(noTok, 'tokenizer.json'));
    await expect(store().import(noTok, 'notok')).rejects.toMatchObject({ message: expect.stringMatching(/lacks tokenizer\.json/) });
    await expect(store().import(max, '../escape')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(store().import(max, 'whisper-mine')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    for (const id of ['bare', 'max', 'dense', 'notok']) expect(existsSync(store().pathOf(id))).toBe(false);
    expect(readdirSync(join(work, 'st', 'models', '.partial'))).toEqual([]);
  });

  it('suggests --as NAME when a folder is not the registry model it was imported as', async () => {
    const dir = cls64;
    await expect(store().import(dir, 'all-MiniLM-L6-v2')).rejects.toMatchObject({
      message: expect.stringMatching(/384-dimensional.*gives 64.*--as NAME/),
    });
  });

  it('searches with an imported model, and asks for kb reindex when other weights are imported under its name', async () => {
    const e = await engine('st-search');
    try {
      await e.importModel(cls64, 'my-cls');
      await e.useModel('my-cls');
      await e.ingest([join(work, 'notes')]);
      expect((await e.search({ query: 'walrus' })).vector).toEqual({ status: 'ok' });
      await e.importModel(cls64, 'my-cls');
      const after = await openEngine({ dataDir: join(work, 'st-search'), config: { embedding: { model: 'my-cls' } } });
      try {
        const r = await after.search({ query: 'walrus' });
        expect(r.vector?.status).toBe('unavailable');
        expect(r.vector?.reason).toMatch(/my-cls as it was set up before.*kb reindex/);
        expect(r.results[0]!.citation.path).toBe(join(work, 'notes/walrus.md'));
      } finally {
        after.close();
      }
    } finally {
      e.close();
    }
  });

  it('is reachable from the CLI: import --as, list, use, and a JSON answer', async () => {
    const env = { KB_DATA_DIR: join(work, 'cli'), KB_CONFIG: join(work, 'none.yaml'), KB_OLLAMA_HOST: stub.url };
    expect(kb(['models', 'import', cls64, '--as', 'my-cls', '--json'], { env }).json()).toMatchObject({
      model: { id: 'my-cls', kind: 'embedding', dimension: 64 },
    });
    const list = kb(['models', 'list'], { env });
    expect(list.stdout).toMatch(/my-cls\s+64d\s+128 tokens\s+installed .*\(imported\)/);
    expect(list.stdout).toMatch(/Rerankers/);
    // Asynchronously: the stub Ollama answers from this process.
    const use = await kbAsync(['models', 'use', NOMIC, '--json'], { env });
    expect(use.code).toBe(0);
    expect(use.json()).toMatchObject({ kind: 'embedding', model: NOMIC });
    expect(readFileSync(join(work, 'cli', 'config.yaml'), 'utf8')).toMatch(/provider: ollama[\s\S]*model: nomic-embed-text/);
    expect(kb(['status', '--json'], { env }).json()).toMatchObject({ embedding: { model: NOMIC } });
  });
});
