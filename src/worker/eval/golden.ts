// `kb eval`: golden queries (JSONL) against the index, reported as recall@k, MRR and nDCG@10, and
// the difference between two saved runs.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type SearchHit, SearchModeSchema } from '../../shared/wire.js';
import type { KbClient } from '../../shared/api.js';
import { mean, ndcg, recallAt, reciprocalRank } from './metrics.js';
import { describeIssues } from '../../shared/issues.js';
import { type EvalCompareSchema, EvalRunSchema } from '../../shared/cli-output.js';

const GoldenSchema = z
  .object({
    id: z.string().optional(),
    query: z.string().min(1),
    /** Documents that answer the query: absolute, relative to the golden file, or a path suffix. */
    expected_paths: z.array(z.string()).default([]),
    /** Strings (case-insensitive) that a relevant hit's text contains. */
    expected_strings: z.array(z.string()).default([]),
    mode: SearchModeSchema.optional(),
  })
  .refine((g) => g.expected_paths.length + g.expected_strings.length > 0, {
    message: 'each query needs expected_paths or expected_strings',
  });
type Golden = z.infer<typeof GoldenSchema>;

export type EvalRun = z.infer<typeof EvalRunSchema>;
export type QueryOutcome = EvalRun['per_query'][number];

export function readGolden(file: string): Golden[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new KbError('NOT_FOUND', `cannot read ${file}: ${(e as Error).message}`);
  }
  const out: Golden[] = [];
  text.split('\n').forEach((raw, i) => {
    const l = raw.trim();
    if (!l || l.startsWith('//') || l.startsWith('#')) return;
    let data: unknown;
    try {
      data = JSON.parse(l);
    } catch {
      throw new KbError('INVALID_ARGUMENT', `${file}:${i + 1}: not valid JSON`);
    }
    const r = GoldenSchema.safeParse(data);
    if (!r.success) throw new KbError('INVALID_ARGUMENT', `${file}:${i + 1}: ${describeIssues(r.error)}`);
    out.push(r.data);
  });
  if (out.length === 0) throw new KbError('INVALID_ARGUMENT', `${file} holds no queries`);
  return out;
}

function relevantKey(hit: SearchHit, g: Golden, base: string): string | null {
  for (const p of g.expected_paths) {
    const abs = resolve(base, p);
    if (hit.citation.path === abs || hit.citation.path.endsWith('/' + p.replace(/^\.\//, ''))) return `path:${p}`;
  }
  const text = hit.text.toLowerCase();
  for (const s of g.expected_strings) if (text.includes(s.toLowerCase())) return `string:${s}`;
  return null;
}

export async function runEval(kb: Pick<KbClient, 'search'>, file: string, opts: { k: number; mode?: string }): Promise<EvalRun> {
  const golden = readGolden(file);
  const base = dirname(resolve(file));
  const per: QueryOutcome[] = [];
  for (const [i, g] of golden.entries()) {
    const mode = SearchModeSchema.parse(g.mode ?? opts.mode ?? 'hybrid');
    const res = await kb.search({ query: g.query, mode, top: Math.max(opts.k, 10) });
    // A relevant target counts once: its first hit. Later hits of the same target are not relevant again.
    const seen = new Set<string>();
    const ranked = res.results.map((h) => {
      const key = relevantKey(h, g, base);
      if (!key || seen.has(key)) return `other:${h.chunk_id}`;
      seen.add(key);
      return key;
    });
    const targets = new Set([...g.expected_paths.map((p) => `path:${p}`), ...g.expected_strings.map((s) => `string:${s}`)]);
    const gains = new Map([...targets].map((t) => [t, 1]));
    const rr = reciprocalRank(ranked, targets);
    per.push({
      id: g.id ?? String(i + 1),
      query: g.query,
      recall: recallAt(ranked, targets, opts.k),
      mrr: rr,
      ndcg10: ndcg(ranked, gains, 10),
      first_relevant_rank: rr > 0 ? Math.round(1 / rr) : null,
      top: res.results.slice(0, 3).map((h) => h.citation.uri),
    });
  }
  return {
    schema_version: SCHEMA_VERSION,
    file: resolve(file),
    k: opts.k,
    mode: opts.mode ?? 'hybrid',
    queries: per.length,
    metrics: { recall_at_k: mean(per.map((p) => p.recall)), mrr: mean(per.map((p) => p.mrr)), ndcg_at_10: mean(per.map((p) => p.ndcg10)) },
    per_query: per,
  };
}

/** A saved run is read back with the schema it was written by (the parts compare uses). */
const RunFileSchema = EvalRunSchema.pick({ metrics: true, per_query: true, k: true });

export type EvalComparison = z.infer<typeof EvalCompareSchema>;

export function compareRuns(fileA: string, fileB: string): EvalComparison {
  const load = (f: string): z.infer<typeof RunFileSchema> => {
    try {
      return RunFileSchema.parse(JSON.parse(readFileSync(f, 'utf8')));
    } catch (e) {
      throw new KbError('INVALID_ARGUMENT', `${f} is not a saved "kb eval run --json" result: ${(e as Error).message.slice(0, 200)}`);
    }
  };
  const a = load(fileA);
  const b = load(fileB);
  const keys = ['recall_at_k', 'mrr', 'ndcg_at_10'] as const;
  const metrics = Object.fromEntries(
    keys.map((k) => [k, { a: a.metrics[k], b: b.metrics[k], delta: b.metrics[k] - a.metrics[k] }]),
  ) as EvalComparison['metrics'];
  const byId = new Map(a.per_query.map((q) => [q.id, q]));
  const changed = b.per_query
    .flatMap((q) => {
      const prev = byId.get(q.id);
      if (!prev || Math.abs(prev.ndcg10 - q.ndcg10) < 1e-9) return [];
      return [{ id: q.id, query: q.query, ndcg10_a: prev.ndcg10, ndcg10_b: q.ndcg10, delta: q.ndcg10 - prev.ndcg10 }];
    })
    .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta));
  return { schema_version: SCHEMA_VERSION, a: resolve(fileA), b: resolve(fileB), metrics, changed };
}
