// Ask against a stub Ollama on 127.0.0.1 that speaks the real API, one scripted case each: what the
// user sees (CLI and result), and that the evidence gate refuses without calling the model at all.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gate, thresholdsFor } from '../src/worker/ask/gate.js';
import { defaultConfig } from '../src/shared/config.js';
import { modelSpec } from '../src/worker/embed/registry.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOllamaStub, type OllamaStub } from './support/ollama-stub.js';
import { type Engine, openEngine } from '../src/worker/index.js';
import type { AskProgress, SearchResult } from '../src/shared/wire.js';
import { checkAnswer } from '../src/worker/ask/check.js';
import { mergeHits, packSources } from '../src/worker/ask/sources.js';
import { engineIn, kbAsync, tempDir, writeTree } from './helpers.js';

const NOTES = {
  'setup.md':
    '# Setup\n\n## Linux\n\nInstall git with sudo apt-get install git, then set your name with git config --global user.name.\n\n## Windows\n\nDownload the Git for Windows installer and run it with the default options.\n',
  'cooking.md': '# Pancakes\n\nWhisk two eggs with milk and flour; rest the batter for ten minutes before frying.\n',
};

let stub: OllamaStub;
let engine: Engine;
let dir: string;
const ask = async (question: string, extra: Record<string, unknown> = {}) => {
  const events: AskProgress[] = [];
  const result = await engine.ask({ question, onProgress: (p) => events.push(p), ...extra });
  return { result, events, tokens: events.filter((e) => e.kind === 'token').map((e) => (e as { text: string }).text) };
};

beforeAll(async () => {
  stub = await startOllamaStub();
  process.env.KB_OLLAMA_HOST = stub.url;
  // Not tempDir(): its folders go after each test, and these notes serve the whole file.
  dir = await mkdtemp(join(tmpdir(), 'kb-ask-'));
  await writeTree(dir, NOTES);
  engine = await openEngine({ dataDir: join(dir, 'data'), config: { ask: { first_token_timeout_s: 0.5, stall_timeout_s: 0.5 } } });
  await engine.ingest([dir]);
});
afterAll(async () => {
  engine?.close();
  delete process.env.KB_OLLAMA_HOST;
  await stub?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('ask (stub Ollama)', () => {
  it('streams a cited answer; each [n] maps to its source citation', async () => {
    stub.set({ chat: { tokens: ['Install git', ' with apt-get', ' [1].'] } });
    const { result, events, tokens } = await ask('How do I install git on Linux?');
    expect(events[0]).toMatchObject({ kind: 'sources' });
    expect(tokens).toEqual(['Install git', ' with apt-get', ' [1].']);
    expect(result).toMatchObject({
      answer: 'Install git with apt-get [1].',
      refused: false,
      model: 'llama3.2',
      llm: { status: 'ok' },
      invalid_citations: [],
      uncited_sentences: [],
    });
    expect(result.citations).toHaveLength(1);
    expect(result.citations[0]!.citation.label).toMatch(/^setup\.md · L\d+–\d+ § Setup/);
    expect(result.sources[0]!.hit.citation.path).toBe(join(dir, 'setup.md'));
    // The model was given the numbered sources and the rules.
    const chat = stub.calls.filter((c) => c.path === '/api/chat').at(-1)!.body as {
      messages: { role: string; content: string }[];
      options: { num_ctx: number };
    };
    expect(chat.messages[0]!.content).toMatch(/cite it with its number in square brackets/);
    expect(chat.messages[1]!.content).toMatch(/^Sources:\n\n\[1\] setup\.md · L/);
    expect(chat.messages[1]!.content).toMatch(/Question: How do I install git on Linux\?$/);
    expect(chat.options.num_ctx).toBe(8192);
  });

  it('removes a citation of a source that was not given, and says so', async () => {
    stub.set({ chat: { tokens: ['Use apt-get [1][9].', ' Then configure it [9].'] } });
    const { result } = await ask('How do I install git on Linux?');
    expect(result.answer).toBe('Use apt-get [1]. Then configure it.');
    expect(result.invalid_citations).toEqual([9]);
    expect(result.citations.map((c) => c.n)).toEqual([1]);
    expect(result.uncited_sentences).toEqual(['Then configure it.']);
  });

  it('flags an answer that cites nothing', async () => {
    stub.set({ chat: { tokens: ['Git is installed with apt-get.', ' It is easy.'] } });
    const { result } = await ask('How do I install git on Linux?');
    expect(result.citations).toEqual([]);
    expect(result.uncited_sentences).toEqual(['Git is installed with apt-get.', 'It is easy.']);
  });

  it('takes "the documents do not say" as a refusal by the model', async () => {
    stub.set({ chat: { tokens: ['The documents do not say.'] } });
    const { result } = await ask('Which git version do I need on Linux?');
    expect(result).toMatchObject({ refused: true, reason: 'the model found no answer in the sources', citations: [] });
  });

  it('ends an error in mid-stream with a clear message, after the tokens that came', async () => {
    stub.set({ chat: { tokens: ['Install', ' git', ' with'], errorAfter: 2 } });
    const events: AskProgress[] = [];
    await expect(engine.ask({ question: 'How do I install git on Linux?', onProgress: (p) => events.push(p) })).rejects.toMatchObject({
      code: 'LLM_FAILED',
      message: expect.stringMatching(/^Ollama stopped in the middle of the answer: .*out of memory/),
    });
    expect(events.filter((e) => e.kind === 'token')).toHaveLength(2);
  });

  it('gives up on a very slow first token with TIMEOUT instead of hanging', async () => {
    stub.set({ chat: { tokens: ['late'], firstDelayMs: 3000 } });
    // The stub does answer, after 3 s: an answer here would mean kb waited past its limit.
    await expect(ask('How do I install git on Linux?')).rejects.toMatchObject({
      code: 'TIMEOUT',
      message: expect.stringMatching(/no answer within 0\.5 s/),
    });
  });

  it('says which model is missing, what is pulled and how to pull it; the sources are still there', async () => {
    stub.set({ models: ['mistral:latest', 'qwen2.5:7b'] });
    const { result } = await ask('How do I install git on Linux?');
    expect(result.llm).toEqual({
      status: 'unavailable',
      reason: expect.stringMatching(/"llama3\.2" is not pulled\. Pulled: mistral:latest, qwen2\.5:7b\. Get it with: ollama pull llama3\.2/),
    });
    expect(result.answer).toBe('');
    expect(result.sources[0]!.hit.citation.label).toMatch(/^setup\.md/);
    stub.set({});
  });

  it('says how to start Ollama when nothing listens; the sources are still there', async () => {
    const down = await startOllamaStub();
    const url = down.url;
    await down.close();
    // The environment is read once, when an engine opens: this one opens with the dead address.
    process.env.KB_OLLAMA_HOST = url;
    const other = await openEngine({ dataDir: join(dir, 'data') }).finally(() => {
      process.env.KB_OLLAMA_HOST = stub.url;
    });
    try {
      const result = await other.ask({ question: 'How do I install git on Linux?' });
      expect(result.llm.status).toBe('unavailable');
      expect(result.llm.reason).toBe(
        `Ollama is not running at ${url}. Start it with: ollama serve (or point KB_OLLAMA_HOST / ask.ollama_host at it)`,
      );
      expect(result.sources.length).toBeGreaterThan(0);
    } finally {
      other.close();
    }
  });

  it('refuses a question the documents do not touch, without any call to the model', async () => {
    const before = stub.calls.length;
    const { result } = await ask('Who won the football World Cup in 2014?');
    expect(result).toMatchObject({ refused: true, answer: "I couldn't find this in your documents.", model: null });
    expect(result.evidence!.coverage).toBeLessThan(0.6);
    expect(stub.calls.length).toBe(before); // not /api/chat, not /api/show: nothing
  });

  it('stops when cancelled', async () => {
    stub.set({ chat: { tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), delayMs: 50 } });
    const ctl = new AbortController();
    const p = engine.ask({
      question: 'How do I install git on Linux?',
      signal: ctl.signal,
      onProgress: (e) => e.kind === 'token' && ctl.abort(),
    });
    await expect(p).rejects.toThrow();
    stub.set({});
  });
});

describe('kb doctor and the language model', () => {
  it('reports the Ollama version and whether the model is pulled, or what to do', async () => {
    stub.set({});
    const ok = (await engine.doctor()).checks.find((c) => c.name === 'language model');
    expect(ok).toEqual({ name: 'language model', status: 'ok', detail: `Ollama 0.12.0 at ${stub.url}; llama3.2 is pulled` });
    stub.set({ models: ['mistral:latest'] });
    const missing = (await engine.doctor()).checks.find((c) => c.name === 'language model');
    expect(missing).toMatchObject({
      status: 'warn',
      detail: expect.stringMatching(/llama3\.2 is not pulled \(run: ollama pull llama3\.2\)/),
    });
    stub.set({});
    expect(stub.calls.some((c) => c.path === '/api/version')).toBe(true);
  });
});

describe('kb ask (CLI)', () => {
  it('prints the streamed answer and the sources it cites; --json gives the whole result', async () => {
    stub.set({ chat: { tokens: ['Run sudo apt-get install git', ' [1].'] } });
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_OLLAMA_HOST: stub.url, KB_CONFIG: join(dir, 'none.yaml') };
    const human = await kbAsync(['ask', 'How do I install git on Linux?'], { env });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Run sudo apt-get install git \[1\]\.\n\n\[1\] setup\.md · L\d+–\d+ § Setup/);
    const json = await kbAsync(['ask', '--json', 'How do I install git on Linux?'], { env });
    expect(json.code).toBe(0);
    const r = json.json() as {
      answer: string;
      citations: { n: number; citation: { uri: string } }[];
      refused: boolean;
      reason: null;
      model: string;
      took_ms: number;
    };
    expect(r).toMatchObject({ answer: 'Run sudo apt-get install git [1].', refused: false, reason: null, model: 'llama3.2' });
    expect(r.citations[0]!.citation.uri).toMatch(/^file:\/\/.*setup\.md#L\d+-L\d+$/);
  });

  it('shows the evidence and how to start Ollama when it is not running (exit 1)', async () => {
    const down = await startOllamaStub();
    await down.close();
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_OLLAMA_HOST: down.url, KB_CONFIG: join(dir, 'none.yaml') };
    const r = await kbAsync(['ask', 'How do I install git on Linux?'], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`Ollama is not running at ${down.url}. Start it with: ollama serve`);
    expect(r.stdout).toMatch(/\[1\] setup\.md · L/);
  });

  it('refuses plainly', async () => {
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_OLLAMA_HOST: stub.url, KB_CONFIG: join(dir, 'none.yaml') };
    const r = await kbAsync(['ask', 'Who won the football World Cup in 2014?'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^I couldn't find this in your documents\./);
  });
});

describe('sources and checks', () => {
  it('merges neighbouring chunks of one document into one source and drops near-duplicates', async () => {
    const d = await tempDir();
    const long = Array.from(
      { length: 6 },
      (_, i) => `## Part ${i + 1}\n\n${`Section ${i + 1} talks about gliders and their wings in detail. `.repeat(20)}\n`,
    ).join('\n');
    await writeTree(d, { 'a.md': `# Gliders\n\n${long}`, 'b.md': `# Gliders\n\n${long}` });
    const e = await engineIn(join(d, 'data'));
    await e.ingest([d]);
    const found = await e.search({ query: 'gliders wings detail', top: 20, mode: 'lexical' });
    const merged = mergeHits(found.results);
    // b.md says the same as a.md: dropped. a.md's parts touch: fewer, longer sources spanning more lines.
    expect(new Set(merged.map((h) => h.citation.path))).toEqual(
      new Set([join(d, found.results[0]!.citation.path.endsWith('a.md') ? 'a.md' : 'b.md')]),
    );
    expect(merged.length).toBeLessThan(found.results.length / 2);
    const first = merged[0]!.citation;
    expect(first.kind === 'lines' && first.end - first.start).toBeGreaterThan(5);
    expect(merged[0]!.citation.uri).toMatch(/#L\d+-L\d+$/);
    // Packing stops at the budget.
    const packed = packSources(merged, 300);
    expect(packed.length).toBeGreaterThanOrEqual(1);
    expect(packed.map((s) => s.n)).toEqual(packed.map((_, i) => i + 1));
    e.close();
  });

  it('reads [n], [n][m], [n, m] and [n–m] citations', () => {
    const c = checkAnswer('Alpha [1, 2]. Beta [2–3]. Gamma [4]. Delta.', 3);
    expect(c.answer).toBe('Alpha [1][2]. Beta [2][3]. Gamma. Delta.');
    expect(c.cited).toEqual([1, 2, 3]);
    expect(c.invalid).toEqual([4]);
    expect(c.uncited).toEqual(['Gamma.', 'Delta.']);
  });
});

describe('the refusal gate by meaning (ask.gate.min_similarity)', () => {
  /** One passage that holds 10% of the question's words, weakly, and is `similarity` from it by meaning. */
  const found = (similarity: number | null): SearchResult =>
    ({
      results: [
        {
          matched_terms: ['git'],
          retrieval: { vector_score: similarity, explain: { coverage: 0.1, bm25_raw: -0.5 } },
        },
      ],
    }) as unknown as SearchResult;
  const words = { min_coverage: 0.6, min_strength: 2 };

  it('lets words alone decide unless a threshold is set', () => {
    expect(gate(found(0.95), 1, words)).toMatchObject({ refuse: true, similarity: 0.95 });
  });

  it('lets a question through when a passage is similar enough by meaning, and only then', () => {
    expect(gate(found(0.8), 1, { ...words, min_similarity: 0.7 })).toMatchObject({ refuse: false, similarity: 0.8 });
    expect(gate(found(0.6), 1, { ...words, min_similarity: 0.7 }).refuse).toBe(true);
    // Without vectors (no model bound, or Ollama down) the threshold cannot apply.
    expect(gate(found(null), 1, { ...words, min_similarity: 0.7 })).toMatchObject({ refuse: true, similarity: null });
  });

  it("takes the embedding model's own measured threshold when the config sets none, and the config's when it does", () => {
    const c = defaultConfig();
    expect(thresholdsFor(c).min_similarity).toBe(modelSpec('all-MiniLM-L6-v2')!.gateSimilarity);
    expect(thresholdsFor({ ...c, ask: { ...c.ask, gate: { ...c.ask.gate, min_similarity: 0.9 } } }).min_similarity).toBe(0.9);
    // A model kb has not measured (imported, or Ollama's) opens no way by meaning.
    expect(thresholdsFor({ ...c, embedding: { ...c.embedding, model: 'my-model' } }).min_similarity).toBeUndefined();
    expect(
      thresholdsFor({ ...c, embedding: { ...c.embedding, provider: 'ollama', model: 'nomic-embed-text' } }).min_similarity,
    ).toBeUndefined();
  });
});
