// Calibrating the gate's meaning signal (ask.gate.min_similarity) for one embedding model: the
// Cranfield index embedded with it, the best passage's cosine similarity for the 225 answerable and
// the 132 unanswerable questions, and the threshold that lets ≤ 10% of the unanswerable through by
// meaning. It needs the model's real weights (none can be had here), so it runs only when asked:
//   KB_BENCH_EMBEDDING=/path/to/model-folder [KB_BENCH_EMBEDDING_AS=name] npm run bench -- ask
// With the random-weight test model it runs too, and its figures mean nothing.
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../src/shared/config.js';
import { gate } from '../src/worker/ask/gate.js';
import { openEngine } from '../src/worker/index.js';
import { benchDir, percentile } from './util.js';

export async function similarityCalibration(lexicalIndex: string, answerable: string[], unanswerable: string[]): Promise<string[]> {
  const folder = process.env.KB_BENCH_EMBEDDING;
  if (!folder)
    return [
      '  min_similarity: not calibrated here (no real embedding weights); KB_BENCH_EMBEDDING=<model folder> npm run bench -- ask prints it for a model',
    ];
  const name = process.env.KB_BENCH_EMBEDDING_AS ?? 'bench-embedding';
  const data = join(benchDir('ask-similarity'), 'data');
  if (existsSync(data)) rmSync(data, { recursive: true });
  cpSync(lexicalIndex, data, { recursive: true });
  const engine = await openEngine({ dataDir: data, config: { store_originals: 'reference' } });
  try {
    if (!existsSync(join(data, 'models', name))) await engine.importModel(folder, name);
    await engine.useModel(name);
    const t = { ...defaultConfig().ask.gate, min_similarity: undefined };
    const best = async (q: string): Promise<number> =>
      gate(await engine.search({ query: q, top: defaultConfig().ask.top, mode: 'hybrid', explain: true }), await engine.evidenceUnit(), t)
        .similarity ?? -1;
    const A: number[] = [];
    for (const q of answerable) A.push(await best(q));
    const U: number[] = [];
    for (const q of unanswerable) U.push(await best(q));
    A.sort((a, b) => a - b);
    U.sort((a, b) => a - b);
    const threshold = percentile(U, 90);
    const p = (xs: number[], q: number): string => percentile(xs, q).toFixed(3);
    return [
      `  similarity (${name}, from ${folder})  answerable p10 ${p(A, 10)} p50 ${p(A, 50)}   unanswerable p50 ${p(U, 50)} p90 ${p(U, 90)} max ${p(U, 100)}`,
      `  ask.gate.min_similarity for ${name}: ${threshold.toFixed(3)} (lets ${((100 * U.filter((x) => x >= threshold).length) / U.length).toFixed(1)}% of the unanswerable through by meaning, and ${((100 * A.filter((x) => x >= threshold).length) / A.length).toFixed(1)}% of the answerable)`,
    ];
  } finally {
    engine.close();
  }
}
