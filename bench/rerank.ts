// Reranking's cost: the 225 Cranfield questions searched with and without a MiniLM-L6-sized
// cross-encoder (random weights, the real architecture, int8-quantized as the hub's
// model_quantized.onnx) re-scoring 30 candidates. Random weights say nothing about quality, so this
// measures time only; with real weights the figure to add is nDCG@10 with and without reranking on
// BEIR SciFact and NFCorpus (kb eval run on their qrels).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { makeTestModel } from '../test/support/make-test-model.js';
import { cranfieldIndex } from './cranfield.js';
import { benchDir, percentile, type BenchResult } from './util.js';

const RERANKER = 'ms-marco-MiniLM-L-6-v2';

function crossEncoder(): string {
  const dir = join(benchDir('models'), 'ce-minilm-l6-int8');
  if (!existsSync(join(dir, 'onnx', 'model_quantized.onnx')))
    makeTestModel({ arch: 'minilm-l6', out: dir, crossEncoder: true, quantized: true });
  return dir;
}

const ms = (n: number): string => `${n.toFixed(1)} ms`;

/** Per question: the plain search's time, and what reranking adds to it. */
async function added(dataDir: string, queries: string[], maxTokens: number): Promise<{ plain: number[]; extra: number[] }> {
  const engine = await openEngine({ dataDir, config: { store_originals: 'reference', rerank: { max_tokens: maxTokens, candidates: 30 } } });
  try {
    for (const q of queries.slice(0, 5)) await engine.search({ query: q, rerank: true }); // loads the model, warms the kernels
    const plain: number[] = [];
    const extra: number[] = [];
    for (const q of queries) {
      let t = performance.now();
      await engine.search({ query: q, rerank: false });
      const p = performance.now() - t;
      t = performance.now();
      const r = await engine.search({ query: q, rerank: true });
      const withRerank = performance.now() - t;
      if (r.rerank?.status !== 'ok') throw new Error(`not reranked: ${r.rerank?.reason ?? 'no status'}`);
      plain.push(p);
      extra.push(withRerank - p);
    }
    return { plain: plain.sort((a, b) => a - b), extra: extra.sort((a, b) => a - b) };
  } finally {
    engine.close();
  }
}

export async function benchRerank(): Promise<BenchResult> {
  const { engine, c, added: docs, work } = await cranfieldIndex('rerank');
  await engine.importModel(crossEncoder(), RERANKER);
  engine.close();
  const dataDir = join(work, 'data');
  const lines = [
    `${docs} Cranfield abstracts, ${c.queries.length} questions (words only); cross-encoder: minilm-l6 architecture, int8, random weights; 30 candidates`,
  ];
  const DEFAULT = 48;
  let p95AtDefault = NaN;
  for (const maxTokens of [DEFAULT, 64, 128]) {
    const { plain, extra } = await added(dataDir, c.queries, maxTokens);
    if (maxTokens === DEFAULT) p95AtDefault = percentile(extra, 95);
    lines.push(
      `rerank.max_tokens ${maxTokens}: adds p50 ${ms(percentile(extra, 50))}, p95 ${ms(percentile(extra, 95))}, max ${ms(extra.at(-1)!)}` +
        ` (the search alone: p50 ${ms(percentile(plain, 50))}, p95 ${ms(percentile(plain, 95))})`,
    );
  }
  lines.push(
    'quality: not measured — random weights rank at random. With real weights: nDCG@10 on BEIR SciFact and NFCorpus, hybrid with and without --rerank.',
  );
  return {
    name: 'rerank',
    lines,
    checks: [
      {
        what: `time reranking 30 candidates adds to a search, p95 (rerank.max_tokens ${DEFAULT}, the default)`,
        value: p95AtDefault,
        target: 150,
        better: 'lower',
        unit: ' ms',
      },
    ],
  };
}
