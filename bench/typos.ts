// Typos, on Cranfield and CACM: each query gets one realistic slip in one of its content words (two
// neighbouring letters swapped, a letter dropped, doubled, or hit on the key beside it), as people
// type into a search box. nDCG@10 of the queries as typed with kb's correction (spelling.ts) must keep
// ≥ 90% of the clean queries', and the clean queries must lose nothing to it. Both the full queries
// and the short ones (each query's 2–3 rarest words) are measured: a slip in a short query costs most.
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import type { Prepared } from './ranking.js';
import { prepare, scoreRuns } from './ranking.js';
import { ndcg } from '../src/worker/eval/metrics.js';
import { smartCollections } from './smart.js';
import { corporaDir, type BenchResult, type Check } from './util.js';

/** QWERTY neighbours: the key a finger slips onto. */
const NEAR: Record<string, string> = {
  q: 'wa',
  w: 'qes',
  e: 'wrd',
  r: 'etf',
  t: 'ryg',
  y: 'tuh',
  u: 'yij',
  i: 'uok',
  o: 'ipl',
  p: 'ol',
  a: 'qsz',
  s: 'adwx',
  d: 'sfe',
  f: 'dgr',
  g: 'fht',
  h: 'gjy',
  j: 'hku',
  k: 'jli',
  l: 'ko',
  z: 'xa',
  x: 'zcs',
  c: 'xvd',
  v: 'cbf',
  b: 'vng',
  n: 'bmh',
  m: 'nj',
};

/** A repeatable random sequence (one seed per query), so every run injects the same typos. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

/** One slip in `w`, never in its first letter (people rarely miss that one). */
export function typo(w: string, r: () => number): string {
  const i = 1 + Math.floor(r() * (w.length - 1));
  const kind = Math.floor(r() * 4);
  if (kind === 0 && i + 1 < w.length && w[i] !== w[i + 1]) return w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  if (kind === 1) return w.slice(0, i) + w.slice(i + 1);
  if (kind === 2) return w.slice(0, i) + w[i] + w.slice(i);
  const near = NEAR[w[i]!] ?? 'e';
  return w.slice(0, i) + near[Math.floor(r() * near.length)] + w.slice(i + 1);
}

/** The query with one of its words of 5+ letters mistyped (the word picked at random, with the slip). */
function withTypo(q: string, seed: number): { query: string; from: string; to: string } | null {
  const r = rng(seed * 2654435761);
  const words = [...q.matchAll(/\b[a-zA-Z]{5,}\b/g)].map((m) => m[0]);
  if (words.length === 0) return null;
  const from = words[Math.floor(r() * words.length)]!;
  const to = typo(from.toLowerCase(), r);
  return { query: q.replace(new RegExp(`\\b${from}\\b`), to), from: from.toLowerCase(), to };
}

async function runs(p: Prepared, queries: string[], correct: boolean): Promise<{ runs: string[][]; fixed: string[][] }> {
  const engine = await openEngine({ dataDir: p.dataDir, config: { store_originals: 'reference' } });
  try {
    const out: string[][] = [];
    const fixed: string[][] = [];
    for (const q of queries) {
      const r = await engine.search({ query: q, mode: 'lexical', top: 150, correct });
      out.push([...new Set(r.results.map((h) => String(Number(h.citation.path.slice(-9, -4)))))].slice(0, 100));
      fixed.push((r.corrected?.words ?? []).map((w) => `${w.from}→${w.to}`));
    }
    return { runs: out, fixed };
  } finally {
    engine.close();
  }
}

export async function benchTypos(): Promise<BenchResult> {
  const lines: string[] = [];
  const checks: Check[] = [];
  for (const { name, dir } of smartCollections(join(corporaDir(), 'ir'))) {
    const p = await prepare(name, dir);
    for (const set of p.sets) {
      const typed = set.queries.map((q, i) => withTypo(q, i + 1));
      const mistyped = set.queries.map((q, i) => typed[i]?.query ?? q);
      const cleanOff = scoreRuns((await runs(p, set.queries, false)).runs, p.c);
      const cleanOn = await runs(p, set.queries, true);
      const typoOff = scoreRuns((await runs(p, mistyped, false)).runs, p.c);
      const typoOn = await runs(p, mistyped, true);
      const on = scoreRuns(typoOn.runs, p.c);
      const clean = scoreRuns(cleanOn.runs, p.c);
      // How often the slip was put back to the very word typed (its stem: "measurement" for "measurements" is right too).
      let back = 0;
      let touched = 0;
      typed.forEach((t, i) => {
        if (!t) return;
        touched++;
        if (typoOn.fixed[i]!.some((f) => f.startsWith(`${t.to}→`) && f.slice(t.to.length + 1).slice(0, 5) === t.from.slice(0, 5))) back++;
      });
      const cleanTouched = cleanOn.fixed.filter((f) => f.length > 0).length;
      // Per clean query: did the correction cost it anything (more than ranking noise, 0.01 nDCG@10)?
      const cleanOffRuns = (await runs(p, set.queries, false)).runs;
      const hurt: string[] = [];
      cleanOn.runs.forEach((run, i) => {
        const g = p.c.qrels.get(i + 1);
        if (!g || cleanOn.fixed[i]!.length === 0) return;
        const d = ndcg(run, g, 10) - ndcg(cleanOffRuns[i]!, g, 10);
        if (d < -0.01) hurt.push(`q${i + 1} ${cleanOn.fixed[i]!.join(' ')} ${d.toFixed(3)}`);
      });
      if (cleanTouched > 0)
        lines.push(
          `  ${name} ${set.label}: words of clean queries the index lacks, corrected: ${[...new Set(cleanOn.fixed.flat())].join(', ')}`,
        );
      lines.push(
        `${name} ${set.label} (${set.queries.length} queries, ${touched} with a typo): nDCG@10 clean ${cleanOff.ndcg10.toFixed(4)} · with correction ${clean.ndcg10.toFixed(4)} ` +
          `(${cleanTouched} clean queries had a word the index lacks corrected) · typo ${typoOff.ndcg10.toFixed(4)} · typo corrected ${on.ndcg10.toFixed(4)}; ` +
          `the typed word put back ${back} of ${touched}`,
      );
      checks.push({
        what: `${name} ${set.label}: typo corrected / clean nDCG@10`,
        value: on.ndcg10 / cleanOff.ndcg10,
        target: 0.9,
        better: 'higher',
      });
      checks.push({
        what: `${name} ${set.label}: clean with correction / without`,
        value: clean.ndcg10 / cleanOff.ndcg10,
        target: 0.999,
        better: 'higher',
      });
      checks.push({
        what: `${name} ${set.label}: clean queries the correction costs > 0.01 nDCG@10${hurt.length ? ` (${hurt.join('; ')})` : ''}`,
        value: hurt.length,
        target: 0,
        better: 'lower',
      });
    }
  }
  return { name: 'typos', lines, checks };
}
