// Search as you type, on Cranfield and CACM. First the last keystroke: every query of the ranking
// bench (full and short), as the app searches it after its last letter — no trailing space, the last
// word matched as a word and as a prefix — against the finished query: its nDCG@10 must keep 98% of
// the finished query's (issue 49). Then words typed past their stem (the rule was written on neither
// collection, and is checked on both): for each word of 8+ letters seen 3+ times, every prefix longer than the word's stem is
// searched as the app and kb tui search while typing. Where FTS5's own stemming of the prefix finds
// nothing, kb now tries the longest indexed stem the prefix begins with (lexical.ts); before, every
// such keystroke went to the trigram substring search. Reported: how those keystrokes are answered.
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { stem } from '../src/worker/search/query.js';
import { openEngine } from '../src/worker/index.js';
import { ids, prepare, scoreRuns } from './ranking.js';
import { loadSmart, smartCollections } from './smart.js';
import { benchDir, corporaDir, type BenchResult } from './util.js';

const SAMPLE = 400;

async function indexOf(name: string, dir: string): Promise<{ dataDir: string; texts: string[] }> {
  const c = loadSmart(dir, name);
  const work = benchDir(`typing-${name}`);
  const dataDir = join(work, 'data');
  if (!existsSync(join(dataDir, 'kb.sqlite'))) {
    const docs = join(work, 'docs');
    await mkdir(docs, { recursive: true });
    for (const d of c.docs) await writeFile(join(docs, `${d.id.padStart(5, '0')}.txt`), `${d.text}\n`);
    const engine = await openEngine({
      dataDir,
      config: { store_originals: 'reference', ocr: { enabled: false }, audio: { enabled: false } },
    });
    await engine.ingest([docs]);
    engine.close();
  }
  return { dataDir, texts: c.docs.map((d) => d.text) };
}

async function typedPastStem(dataDir: string, texts: string[]): Promise<{ words: number; states: Record<string, number> }> {
  const seen = new Map<string, number>();
  for (const t of texts) for (const w of t.toLowerCase().match(/[a-z]{8,}/g) ?? []) seen.set(w, (seen.get(w) ?? 0) + 1);
  const all = [...seen]
    .filter(([, n]) => n >= 3)
    .map(([w]) => w)
    .sort();
  const words = all.filter((_, i) => i % Math.ceil(all.length / SAMPLE) === 0);
  const states: Record<string, number> = { 'prefix (FTS5 stems it)': 0, 'the word’s own stem': 0, 'a neighbouring stem': 0, substrings: 0 };
  const engine = await openEngine({ dataDir });
  try {
    for (const w of words) {
      const s = stem(w);
      for (let k = s.length + 1; k <= w.length; k++) {
        const r = await engine.search({ query: w.slice(0, k), prefix: true, mode: 'lexical', top: 1, explain: true });
        const f = r.results[0]?.retrieval.explain?.fts_query ?? '';
        const kind = f.endsWith('*')
          ? 'prefix (FTS5 stems it)'
          : f === `"${s}"`
            ? 'the word’s own stem'
            : f.startsWith('substring') || !f
              ? 'substrings'
              : 'a neighbouring stem';
        states[kind]!++;
      }
    }
  } finally {
    engine.close();
  }
  return { words: words.length, states };
}

/** The query as a person types it: without the punctuation that ends a written question. */
const typed = (q: string): string => q.replace(/[^\p{L}\p{N}]+$/u, '');

/** Each query searched finished (a space after it) and at its last keystroke (its last word still a prefix). */
async function lastKeystroke(dataDir: string, queries: string[]): Promise<{ finished: string[][]; typing: string[][] }> {
  const engine = await openEngine({ dataDir, config: { store_originals: 'reference' } });
  const finished: string[][] = [];
  const typing: string[][] = [];
  try {
    for (const q of queries.map(typed)) {
      for (const [prefix, runs] of [
        [false, finished],
        [true, typing],
      ] as const) {
        const r = await engine.search({ query: q, prefix, mode: 'lexical', top: 150 });
        runs.push([...new Set(ids(r.results.map((h) => h.citation.path)))].slice(0, 100));
      }
    }
  } finally {
    engine.close();
  }
  return { finished, typing };
}

export async function benchTyping(): Promise<BenchResult> {
  const lines: string[] = [];
  const checks: BenchResult['checks'] = [];
  for (const { name, dir } of smartCollections(join(corporaDir(), 'ir'))) {
    const p = await prepare(name, dir);
    for (const set of p.sets) {
      const { finished, typing } = await lastKeystroke(p.dataDir, set.queries);
      const done = scoreRuns(finished, p.c).ndcg10;
      const last = scoreRuns(typing, p.c).ndcg10;
      const kept = done > 0 ? last / done : 1;
      lines.push(
        `${name} ${set.label} queries, last keystroke: nDCG@10 ${last.toFixed(4)} against ${done.toFixed(4)} finished (${(100 * kept).toFixed(1)}% kept)`,
      );
      checks.push({
        what: `${name} ${set.label}: last keystroke keeps of the finished nDCG@10`,
        value: kept,
        target: 0.98,
        better: 'higher',
      });
    }
  }
  for (const { name, dir } of smartCollections(join(corporaDir(), 'ir'))) {
    const { dataDir, texts } = await indexOf(name, dir);
    const { words, states } = await typedPastStem(dataDir, texts);
    const helped = states['the word’s own stem']! + states['a neighbouring stem']! + states.substrings!;
    const pct = (n: number): string => `${((100 * n) / Math.max(1, helped)).toFixed(0)}%`;
    lines.push(
      `${name}: ${words} words; of ${helped} keystrokes whose prefix finds nothing, the word's own stem answers ${pct(states['the word’s own stem']!)}, ` +
        `a neighbouring stem ${pct(states['a neighbouring stem']!)}, substrings ${pct(states.substrings!)} (before: substrings 100%); ${states['prefix (FTS5 stems it)']} more found by the prefix itself`,
    );
  }
  return { name: 'typing', lines, checks };
}
