import { readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Embedder } from '../src/worker/embed/embedder.js';
import { BACKGROUND_NICE } from '../src/worker/thread-priority.js';
import { modelSpec, type ModelSpec } from '../src/worker/embed/registry.js';
import { makeTestModel } from './support/make-test-model.js';
import { corporaDir } from './helpers.js';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('embed tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

let work: string;
let tiny: string;
/** The registry's specs, sized for the tiny test model. */
const spec = (id: string): ModelSpec => ({ ...modelSpec(id)!, dimension: 32 });

beforeAll(async () => {
  if (!hasCorpora) return;
  work = await mkdtemp(join(tmpdir(), 'kb-embed-'));
  tiny = makeTestModel({ arch: 'tiny', out: join(work, 'tiny') });
});
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

const dot = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe.skipIf(!hasCorpora)('embedder', () => {
  it('gives unit vectors of the model dimension, the same every time', async () => {
    const e = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const [a, b] = await e.embed(['installing git on debian', 'installing git on debian'], 'passage');
    expect(a).toHaveLength(32);
    expect(Math.sqrt(dot(a!, a!))).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    const [again] = await e.embed(['installing git on debian'], 'passage');
    expect(Array.from(again!)).toEqual(Array.from(a!));
    await e.close();
  });

  // Linux keeps a nice value per thread (/proc/self/task/<tid>/stat, its 19th field).
  it.skipIf(process.platform !== 'linux')('embeds passages on a thread below the priority of the one that answers searches', async () => {
    const nices = (): Map<number, number> =>
      new Map(
        readdirSync('/proc/self/task').map((tid) => {
          const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
          return [Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
        }),
      );
    const before = nices();
    const e = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const passages = await e.passages();
    const [v] = await passages.embed(['installing git on debian'], 'passage');
    expect(v).toHaveLength(32);
    const after = nices();
    const lowered = [...after].filter(([tid, nice]) => !before.has(tid) && nice === BACKGROUND_NICE);
    expect(lowered.length).toBeGreaterThan(0);
    expect(after.get(process.pid)).toBe(before.get(process.pid)); // the thread that searches is not lowered
    await passages.close();
    await e.close();
  });

  it('batches with padding without changing any vector', async () => {
    const e = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const texts = ['short', 'a somewhat longer sentence about version control systems', 'medium length text here', 'x'];
    const together = await e.embed(texts, 'passage');
    for (const [i, t] of texts.entries()) {
      const [alone] = await e.embed([t], 'passage');
      expect(dot(alone!, together[i]!)).toBeCloseTo(1, 4);
    }
    await e.close();
  });

  it('truncates long inputs to the max tokens, keeping the final [SEP]', async () => {
    const e = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const ids = e.encode('word '.repeat(5000));
    expect(ids).toHaveLength(256);
    expect(ids[0]).toBe(101);
    expect(ids.at(-1)).toBe(102);
    const [v] = await e.embed(['word '.repeat(5000)], 'passage');
    expect(v).toHaveLength(32);
    await e.close();
  });

  it('adds the query and passage prefixes the model asks for', async () => {
    const e5 = await Embedder.load(tiny, spec('multilingual-e5-small'));
    const [q] = await e5.embed(['git'], 'query');
    const [p] = await e5.embed(['git'], 'passage');
    expect(dot(q!, p!)).toBeLessThan(0.9999);
    expect(e5.encode('query: git')).not.toEqual(e5.encode('passage: git'));
    await e5.close();
    const mini = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const [q2] = await mini.embed(['git'], 'query');
    const [p2] = await mini.embed(['git'], 'passage');
    expect(Array.from(q2!)).toEqual(Array.from(p2!));
    await mini.close();
  });

  it('pools the [CLS] vector for models that want it', async () => {
    const cls = await Embedder.load(tiny, spec('bge-small-en-v1.5'));
    const mean = await Embedder.load(tiny, spec('all-MiniLM-L6-v2'));
    const [a] = await cls.embed(['pooling differs'], 'passage');
    const [b] = await mean.embed(['pooling differs'], 'passage');
    expect(dot(a!, b!)).toBeLessThan(0.9999);
    await cls.close();
    await mean.close();
  });

  it('runs a graph that takes no token_type_ids', async () => {
    const dir = makeTestModel({ arch: 'tiny', out: join(work, 'no-types'), tokenTypeIds: false });
    const e = await Embedder.load(dir, spec('all-MiniLM-L6-v2'));
    expect((await e.embed(['fine'], 'passage'))[0]).toHaveLength(32);
    await e.close();
  });
});

describe.skipIf(!hasCorpora)('bad model folders get a clear error', () => {
  const broken = async (name: string, breakIt: (dir: string) => void): Promise<string> => {
    const dir = join(work, name);
    await cp(tiny, dir, { recursive: true });
    breakIt(dir);
    return dir;
  };

  it('a folder that is not there', async () => {
    await expect(Embedder.load(join(work, 'nope'), spec('all-MiniLM-L6-v2'))).rejects.toMatchObject({ code: 'MODEL_MISSING' });
  });

  it('a missing tokenizer', async () => {
    const dir = await broken('no-tokenizer', (d) => rmSync(join(d, 'tokenizer.json')));
    await expect(Embedder.load(dir, spec('all-MiniLM-L6-v2'))).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/tokenizer\.json is missing/),
    });
  });

  it('a truncated model file', async () => {
    const dir = await broken('truncated', (d) => truncateSync(join(d, 'onnx/model.onnx'), 200_000));
    await expect(Embedder.load(dir, spec('all-MiniLM-L6-v2'))).rejects.toMatchObject({ code: 'MODEL_INVALID' });
  });

  it('a model file that is not ONNX', async () => {
    const dir = await broken('not-onnx', (d) => writeFileSync(join(d, 'onnx/model.onnx'), 'this is not a model '.repeat(200)));
    await expect(Embedder.load(dir, spec('all-MiniLM-L6-v2'))).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/not a usable ONNX model/),
    });
  });

  it('a model of the wrong dimension', async () => {
    await expect(Embedder.load(tiny, modelSpec('all-MiniLM-L6-v2')!)).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/384-dimensional.*gives 32/),
    });
  });

  it('a tokenizer that does not match the model', async () => {
    const dir = await broken('mismatch', (d) => {
      const config = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8')) as Record<string, unknown>;
      writeFileSync(join(d, 'config.json'), JSON.stringify({ ...config, vocab_size: 1000 }));
    });
    await expect(Embedder.load(dir, spec('all-MiniLM-L6-v2'))).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/does not match/),
    });
  });
});
