import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelStore } from '../src/worker/models/embedding-store.js';
import { openEngine } from '../src/worker/index.js';
import { makeTestModel } from './support/make-test-model.js';
import { type HubBehaviour, type HubStub, startHubStub } from './support/hub-stub.js';
import { corporaDir, kb, kbAsync } from './helpers.js';

const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('model tests skipped: ../shared/corpora (the real tokenizer) is not here; set KB_CORPORA');

let work: string;
let tiny: string;
let hub: HubStub;
let endpoint: string;
let requests: HubStub['requests'];
/** Per test: break the next download of a file after N bytes, or serve other bytes (the stub hub's faults). */
let behaviour: HubBehaviour;

beforeAll(async () => {
  if (!hasCorpora) return;
  work = await mkdtemp(join(tmpdir(), 'kb-models-'));
  // The tiny test model, served as every repo.
  tiny = makeTestModel({ arch: 'tiny', out: join(work, 'tiny') });
  hub = await startHubStub(tiny);
  ({ url: endpoint, requests, behaviour } = hub);
});
afterAll(async () => {
  await hub?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

const store = (name: string): ModelStore => new ModelStore(join(work, name, 'models'));

describe.skipIf(!hasCorpora)('kb models', () => {
  it('pulls a model from the hub layout and installs it whole', async () => {
    const s = store('pull');
    expect(s.list().find((m) => m.id === 'bge-small-en-v1.5')?.installed).toBe(false);
    const m = await s.pull('bge-small-en-v1.5', { url: endpoint });
    expect(m.installed).toBe(true);
    expect(readFileSync(join(m.path!, 'onnx/model_quantized.onnx')).equals(readFileSync(join(tiny, 'onnx/model.onnx')))).toBe(true);
    expect(requests.some((r) => r.path === '/Xenova/bge-small-en-v1.5/resolve/main/tokenizer.json')).toBe(true);
    expect(existsSync(join(work, 'pull/models/.partial/bge-small-en-v1.5'))).toBe(false);
  });

  it('resumes an interrupted download with an HTTP Range request', async () => {
    const s = store('resume');
    behaviour.breakAfter = { file: 'onnx/model_quantized.onnx', bytes: 500_000 };
    await expect(s.pull('multilingual-e5-small', { url: endpoint })).rejects.toMatchObject({
      message: expect.stringMatching(/resume|broke off/),
    });
    expect(s.list().find((m) => m.id === 'multilingual-e5-small')?.installed).toBe(false);
    requests.splice(0);
    const m = await s.pull('multilingual-e5-small', { url: endpoint });
    const onnx = requests.find((r) => r.path.endsWith('model_quantized.onnx'));
    expect(onnx?.range).toMatch(/^bytes=\d+-$/);
    expect(Number(onnx!.range!.slice(6, -1))).toBeGreaterThan(0);
    // Files finished before the break are not fetched again.
    expect(requests.some((r) => r.path.endsWith('tokenizer.json'))).toBe(false);
    expect(readFileSync(join(m.path!, 'onnx/model_quantized.onnx')).equals(readFileSync(join(tiny, 'onnx/model.onnx')))).toBe(true);
  });

  it('rejects a file whose checksum is wrong, and installs nothing', async () => {
    const s = store('corrupt');
    // The right size for all-MiniLM-L6-v2's quantized model, the wrong bytes.
    behaviour.override = { file: 'onnx/model_quantized.onnx', body: Buffer.alloc(22_972_370, 7) };
    try {
      await expect(s.pull('all-MiniLM-L6-v2', { url: endpoint })).rejects.toMatchObject({
        code: 'MODEL_INVALID',
        message: expect.stringMatching(/checksum/),
      });
    } finally {
      behaviour.override = undefined;
    }
    expect(s.isInstalled('all-MiniLM-L6-v2')).toBe(false);
    const partial = join(work, 'corrupt/models/.partial/all-MiniLM-L6-v2/onnx');
    expect(existsSync(partial) ? readdirSync(partial) : []).toEqual([]);
  });

  it('reports a 404 clearly', async () => {
    const s = store('404');
    behaviour.missing = 'tokenizer.json';
    try {
      await expect(s.pull('bge-small-en-v1.5', { url: endpoint })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: expect.stringMatching(/404/),
      });
    } finally {
      behaviour.missing = undefined;
    }
    expect(s.isInstalled('bge-small-en-v1.5')).toBe(false);
  });

  it('imports a folder only if it loads as the model it claims to be', async () => {
    const s = store('import');
    await expect(s.import(tiny, 'all-MiniLM-L6-v2')).rejects.toMatchObject({
      code: 'MODEL_INVALID',
      message: expect.stringMatching(/384/),
    });
    expect(s.isInstalled('all-MiniLM-L6-v2')).toBe(false);
    expect(readdirSync(join(work, 'import/models/.partial'))).toEqual([]);
    const full = makeTestModel({ arch: 'minilm-l6', out: join(work, 'minilm') });
    const m = await s.import(full, 'all-MiniLM-L6-v2');
    expect(m).toMatchObject({ installed: true, dimension: 384 });
    await s.remove('all-MiniLM-L6-v2');
    expect(s.isInstalled('all-MiniLM-L6-v2')).toBe(false);
    await expect(s.remove('all-MiniLM-L6-v2')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is reachable from the CLI, with the hub address from KB_HF_ENDPOINT', async () => {
    const env = { KB_DATA_DIR: join(work, 'cli'), KB_CONFIG: join(work, 'none.yaml'), KB_HF_ENDPOINT: endpoint };
    const list = kb(['models', 'list', '--json'], { env }).json() as { models: { id: string; installed: boolean }[] };
    expect(list.models.map((m) => m.id)).toEqual([
      'all-MiniLM-L6-v2',
      'multilingual-e5-small',
      'bge-small-en-v1.5',
      'ms-marco-MiniLM-L-6-v2',
      'bge-reranker-base',
    ]);
    const pull = await kbAsync(['models', 'pull', 'bge-small-en-v1.5', '--json'], { env });
    expect(pull.code).toBe(0);
    expect(pull.json()).toMatchObject({ model: { id: 'bge-small-en-v1.5', installed: true } });
    const unknown = kb(['models', 'pull', 'gpt-17', '--json'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });

  it('kb models import of the configured model embeds what is indexed, and waits for it before it ends', async () => {
    const dir = join(work, 'follow-on');
    mkdirSync(join(dir, 'notes'), { recursive: true });
    for (let i = 0; i < 12; i++) writeFileSync(join(dir, 'notes', `n${i}.md`), `# Note ${i}\n\nAbout pelicans and harbour ${i}.\n`);
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') };
    expect(kb(['ingest', join(dir, 'notes')], { env }).code).toBe(0);
    makeTestModel({ arch: 'minilm-l6', out: join(dir, 'minilm') });
    // A relative path, as typed in a shell: the command resolves it against its own folder.
    const r = kb(['models', 'import', 'minilm', '--as', 'all-MiniLM-L6-v2', '--json'], { env, cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ model: { id: 'all-MiniLM-L6-v2', installed: true } });
    // The command ended only after its follow-on work: every chunk has its vector now.
    const engine = await openEngine({ dataDir: join(dir, 'data') });
    try {
      const ids = await engine.vectorIds();
      expect(ids?.length).toBe((await engine.status()).chunks);
      expect(ids?.length).toBeGreaterThanOrEqual(12);
    } finally {
      engine.close();
    }
  });
});
