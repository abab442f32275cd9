// `npm run bench -- meaning`: search by meaning with the real models people download (`npm run
// weights` puts them in a cache outside the repo). Every SMART collection in ../shared/corpora/ir
// (Cranfield, CACM), each model whose weights are there: nDCG@10 and R@100 for words alone, meaning
// alone, hybrid with each fusion, and hybrid with the reranker when a cross-encoder's weights exist,
// scored as `npm run bench -- ranking` scores (one .txt a record, documents ranked by first hit).
// Embedding each collection is timed too (passages a second, the model's real cost on these cores).
//   KB_MEANING_MODELS=all-MiniLM-L6-v2 npm run bench -- meaning     (one model; default: every one there)
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigInput } from '../src/shared/config.js';
import type { SearchParams } from '../src/shared/wire.js';
import { openEngine } from '../src/worker/index.js';
import { mean } from '../src/worker/eval/metrics.js';
import { WEIGHTS, weightsPath } from '../scripts/weights/table.js';
import { type Prepared, type Scores, prepare, runKb, scoreRuns } from './ranking.js';
import { smartCollections } from './smart.js';
import { benchDir, corporaDir, type BenchResult, type Check } from './util.js';

/** The default model first: the goals are checked on it. */
const MODELS = ['all-MiniLM-L6-v2', 'all-mpnet-base-v2'];

export interface Method {
  label: string;
  params: Omit<SearchParams, 'query'>;
  config?: ConfigInput;
}

/** The first hybrid is kb's default (adaptive fusion): the goals are checked on it. */
export const METHODS: Method[] = [
  { label: 'words', params: { mode: 'lexical' } },
  { label: 'meaning', params: { mode: 'vector' } },
  { label: 'hybrid', params: { mode: 'hybrid' } },
  { label: 'hybrid rrf', params: { mode: 'hybrid', fusion: 'rrf' } },
  { label: 'hybrid convex', params: { mode: 'hybrid', fusion: 'convex' } },
];

/** The lexical index embedded with `model`, kept between runs while the model's files are the same. */
async function embedded(
  p: Prepared,
  model: string,
  folder: string,
): Promise<{ dataDir: string; perSecond: number | null; chunks: number }> {
  const work = benchDir(`meaning-${p.c.name}-${model}`);
  const dataDir = join(work, 'data');
  const onnx = join(folder, 'onnx', 'model_quantized.onnx');
  const stamp = JSON.stringify({ model, size: statSync(onnx).size, mtime: statSync(onnx).mtimeMs, docs: p.c.docs.length });
  const stampFile = join(work, 'stamp.json');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) {
    const saved = JSON.parse(readFileSync(join(work, 'cost.json'), 'utf8')) as { perSecond: number; chunks: number };
    return { dataDir, ...saved };
  }
  rmSync(work, { recursive: true, force: true });
  cpSync(p.dataDir, dataDir, { recursive: true });
  process.stderr.write(`meaning: embedding ${p.c.name} with ${model} (kept for later runs)…\n`);
  const engine = await openEngine({ dataDir, config: { store_originals: 'reference' } });
  try {
    await engine.importModel(folder, model);
    const t = performance.now();
    const r = await engine.useModel(model);
    const seconds = (performance.now() - t) / 1000;
    const chunks = r.kind === 'embedding' ? r.embedded : 0;
    const cost = { perSecond: chunks / seconds, chunks };
    writeFileSync(join(work, 'cost.json'), JSON.stringify(cost));
    writeFileSync(stampFile, stamp);
    return { dataDir, ...cost };
  } finally {
    engine.close();
  }
}

const f4 = (x: number): string => x.toFixed(4);

export async function benchMeaning(): Promise<BenchResult> {
  const lines: string[] = [];
  const checks: Check[] = [];
  const wanted = process.env.KB_MEANING_MODELS?.split(',') ?? MODELS;
  const models = wanted.map((m) => ({ m, folder: weightsPath(m) })).filter((x): x is { m: string; folder: string } => x.folder !== null);
  const absent = wanted.filter((m) => !models.some((x) => x.m === m));
  if (absent.length > 0) lines.push(`no weights for ${absent.join(', ')} here: npm run weights fetches them (${WEIGHTS.length} models)`);
  if (models.length === 0) {
    return {
      name: 'meaning',
      lines,
      checks: [{ what: 'real embedding weights present (npm run weights)', value: 0, target: 1, better: 'higher' }],
    };
  }
  const prepared: Prepared[] = [];
  for (const { name, dir } of smartCollections(join(corporaDir(), 'ir'))) prepared.push(await prepare(name, dir));

  // model → method → set → per-collection scores
  const table = new Map<string, Map<string, Map<string, Scores[]>>>();
  for (const { m, folder } of models) {
    const byMethod = new Map<string, Map<string, Scores[]>>();
    table.set(m, byMethod);
    for (const p of prepared) {
      const e = await embedded(p, m, folder);
      lines.push(
        `${p.c.name} × ${m}: ${e.chunks} passages embedded${e.perSecond ? ` at ${e.perSecond.toFixed(0)}/s (int8, 2 cores, from the index's first embedding)` : ''}`,
      );
      for (const set of p.sets) {
        const row: string[] = [];
        for (const method of METHODS) {
          const config: ConfigInput = { ...method.config, embedding: { model: m } };
          const s = scoreRuns(await runKb({ dataDir: e.dataDir }, set.queries, config, method.params), p.c);
          const bySet = byMethod.get(method.label) ?? new Map<string, Scores[]>();
          byMethod.set(method.label, bySet);
          bySet.set(set.label, [...(bySet.get(set.label) ?? []), s]);
          row.push(`${method.label} ${f4(s.ndcg10)}/${f4(s.r100)}`);
        }
        lines.push(`  ${set.label.padEnd(5)} nDCG@10/R@100: ${row.join('  ')}`);
      }
    }
  }

  lines.push(
    'hybrid is adaptive fusion (search.fusion): RRF k = 60 with the meaning half weighted by its best − tenth similarity over search.meaning_gap (0.15, chosen on Cranfield with all-MiniLM-L6-v2 among 0.1/0.15/0.2; CACM and all-mpnet-base-v2 are its checks)',
  );
  lines.push('mean over the collections, nDCG@10 (× words) / R@100:');
  for (const [m, byMethod] of table) {
    for (const set of ['full', 'short']) {
      const words = byMethod.get('words')!.get(set)!;
      const wordsMean = mean(words.map((s) => s.ndcg10));
      const cells = [...byMethod].map(([label, bySet]) => {
        const s = bySet.get(set)!;
        const n = mean(s.map((x) => x.ndcg10));
        return `${label} ${f4(n)} (${(n / wordsMean).toFixed(3)}×) / ${f4(mean(s.map((x) => x.r100)))}`;
      });
      lines.push(`  ${m} ${set}: ${cells.join('  ')}`);
      if (m !== models[0]!.m) continue;
      const hybrid = byMethod.get('hybrid')!.get(set)!;
      prepared.forEach((p, i) => {
        checks.push({
          what: `${m}, ${p.c.name} ${set}: hybrid nDCG@10 / words alone`,
          value: hybrid[i]!.ndcg10 / words[i]!.ndcg10,
          target: 1,
          better: 'higher',
        });
      });
      checks.push({
        what: `${m}, ${set}: hybrid nDCG@10 / words alone, mean of the collections (≥ 1.05)`,
        value: mean(hybrid.map((s) => s.ndcg10)) / wordsMean,
        target: 1.05,
        better: 'higher',
      });
    }
  }
  return { name: 'meaning', lines, checks };
}
