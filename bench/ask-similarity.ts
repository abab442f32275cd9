// Calibrating the gate's meaning signal (ask.gate.min_similarity) for one embedding model: the
// Cranfield index embedded with it, the best passage's cosine similarity for the 225 answerable and
// the off-topic questions, and the threshold at which meaning lets none of the off-topic questions
// through that words refuse (embed/registry.ts ships it as the model's gateSimilarity). With the default model's real weights (npm run weights) it runs on them; another model:
//   KB_BENCH_EMBEDDING=/path/to/model-folder [KB_BENCH_EMBEDDING_AS=name] npm run bench -- ask
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../src/shared/config.js';
import { gate } from '../src/worker/ask/gate.js';
import { DEFAULT_MODEL, openEngine } from '../src/worker/index.js';
import { weightsPath } from '../scripts/weights/table.js';
import { benchDir, percentile } from './util.js';

export async function similarityCalibration(lexicalIndex: string, answerable: string[], unanswerable: string[]): Promise<string[]> {
  const folder = process.env.KB_BENCH_EMBEDDING ?? weightsPath(DEFAULT_MODEL);
  if (!folder)
    return ['  min_similarity: not calibrated here (no real embedding weights: npm run weights, or KB_BENCH_EMBEDDING=<model folder>)'];
  const name = process.env.KB_BENCH_EMBEDDING_AS ?? (process.env.KB_BENCH_EMBEDDING ? 'bench-embedding' : DEFAULT_MODEL);
  const data = join(benchDir('ask-similarity'), 'data');
  if (existsSync(data)) rmSync(data, { recursive: true });
  cpSync(lexicalIndex, data, { recursive: true });
  const engine = await openEngine({ dataDir: data, config: { store_originals: 'reference', embedding: { model: name } } });
  try {
    if (!existsSync(join(data, 'models', name))) await engine.importModel(folder, name);
    await engine.useModel(name);
    const t = { ...defaultConfig().ask.gate, min_similarity: undefined };
    // Each question's verdict by words alone, and its best passage's similarity.
    const signals = async (q: string): Promise<{ words: boolean; similarity: number }> => {
      const v = gate(
        await engine.search({ query: q, top: defaultConfig().ask.top, mode: 'hybrid', explain: true }),
        await engine.evidenceUnit(),
        t,
      );
      return { words: v.refuse, similarity: v.similarity ?? -1 };
    };
    const A: { words: boolean; similarity: number }[] = [];
    for (const q of answerable) A.push(await signals(q));
    const U: { words: boolean; similarity: number }[] = [];
    for (const q of unanswerable) U.push(await signals(q));
    const refused = (xs: typeof A, x: number): number => xs.filter((s) => s.words && s.similarity < x).length / xs.length;
    // Where meaning lets none of the off-topic questions through that words refuse (their best
    // similarity, rounded up to the hundredth): the threshold lets a paraphrase in without letting an
    // off-topic question in, and a margin below it is where off-topic ones would start to pass.
    const lowest = (us: typeof U): number => Math.ceil(100 * Math.max(...us.filter((s) => s.words).map((s) => s.similarity)) + 1e-9) / 100;
    const threshold = lowest(U);
    const half = <T>(xs: T[], odd: number): T[] => xs.filter((_, i) => i % 2 === odd);
    const held = lowest(half(U, 0));
    const p = (xs: number[], q: number): string =>
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      ).toFixed(3);
    const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
    const ninety = [...new Set(U.map((s) => Math.round(s.similarity * 1000) / 1000))]
      .sort((a, b) => a - b)
      .find((x) => refused(U, x) >= 0.9);
    return [
      `  similarity (${name}, from ${folder})  answerable p10 ${p(
        A.map((s) => s.similarity),
        10,
      )} p50 ${p(
        A.map((s) => s.similarity),
        50,
      )}   unanswerable p50 ${p(
        U.map((s) => s.similarity),
        50,
      )} p90 ${p(
        U.map((s) => s.similarity),
        90,
      )} max ${p(
        U.map((s) => s.similarity),
        100,
      )}`,
      `  ask.gate.min_similarity for ${name}: ${threshold.toFixed(2)} — the gate (words, or meaning at least this) refuses ${pct(refused(U, threshold))} of the unanswerable and ${pct(refused(A, threshold))} of the answerable (words alone: ${pct(refused(U, 2))} / ${pct(refused(A, 2))}; the lowest that still refuses 90%: ${ninety?.toFixed(3) ?? 'none'})`,
      `  held out: ${held.toFixed(2)}, chosen on every other unanswerable question, refuses ${pct(refused(half(U, 1), held))} of the rest and ${pct(refused(A, held))} of the answerable`,
    ];
  } finally {
    engine.close();
  }
}
