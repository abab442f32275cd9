// `npm run bench -- vocabularies`: every query class fast on libraries the word index was not tuned on
// (bench/vocab-corpora.ts), beside Tantivy indexing the same passages in the same run. Per library and
// per query class (bench/vocab-queries.ts): kb's in-process p50/p95/p99 and Tantivy's, their ratio, and
// each index's size against the text.
// KB_VOCAB_MB: megabytes of text per library (default 60, ~50k passages); KB_VOCAB_ONLY=docs,zipf:
// only these; KB_VOCAB_QUERIES: queries per class (default 150); KB_VOCAB_EXACT: queries per class
// whose top 10 is checked against every match scored (default 15, 0 for none: each scores thousands
// of chunks; bench/vocab-exactness.ts). Each library is written and indexed once into
// .bench/vocab-<name> and measured again while its stamp matches.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openEngine } from '../src/worker/index.js';
import { venvPython } from '../scripts/venv.js';
import { openDb } from '../src/worker/store/open-db.js';
import { type BenchQuery, benchQueries, kbQuery, QUERY_CLASSES } from './vocab-queries.js';
import { VOCAB_CORPORA } from './vocab-corpora.js';
import { exactness } from './vocab-exactness.js';
import { benchDir, percentile, repoRoot, type BenchResult, type Check } from './util.js';

const STAMP = 'vocab-v1'; // bump when a library's writer or kb's index format changes
const CONFIG = { store_originals: 'reference' as const };

/** Tantivy's Python, in a venv of the bench's own; why not where it cannot be installed. */
function tantivyPython(): { py: string } | { missing: string } {
  try {
    return { py: venvPython(benchDir('venv-tantivy'), join(repoRoot, 'bench', 'tantivy', 'requirements.txt')) };
  } catch (e) {
    return { missing: (e as Error).message.split('\n')[0]! };
  }
}

interface TantivyRun {
  build_s: number;
  index_bytes: number;
  times: number[];
}

const fileSize = (p: string): number => (existsSync(p) ? statSync(p).size : 0);

/** The library written and indexed (lexical only: the bench measures the words half). */
async function built(name: string, write: (dir: string, bytes: number) => Promise<number>, bytes: number): Promise<string> {
  const root = benchDir(`vocab-${name}`);
  const stampFile = join(root, 'stamp');
  const stamp = `${STAMP}:${bytes}`;
  const data = join(root, 'data');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return data;
  rmSync(root, { recursive: true, force: true });
  const notes = join(root, 'notes');
  const t0 = performance.now();
  const wrote = await write(notes, bytes);
  const engine = await openEngine({ dataDir: data, config: CONFIG });
  try {
    const s = await engine.ingest([notes]);
    await engine.backgroundWork();
    console.error(
      `  ${name}: wrote ${(wrote / 1e6).toFixed(0)} MB, indexed ${s.added} files in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
    );
  } finally {
    engine.close();
  }
  writeFileSync(stampFile, stamp);
  return data;
}

function passagesOf(data: string): string[] {
  const db = openDb(join(data, 'kb.sqlite'), { readonly: true });
  try {
    return db.prepare('SELECT kb_unpack(packed, text) AS text FROM chunks ORDER BY rowid').pluck().all() as string[];
  } finally {
    db.close();
  }
}

/**
 * `warm`: other queries of the same kinds, asked first — the page cache, the statements and the tops
 * are warm, as in a session, but no timed query finds its own candidates kept from before.
 */
async function kbTimes(data: string, qs: BenchQuery[], warm: BenchQuery[]): Promise<number[]> {
  const engine = await openEngine({ dataDir: data, config: CONFIG });
  try {
    await engine.backgroundWork();
    const search = (q: BenchQuery): Promise<unknown> => engine.search({ query: kbQuery(q), prefix: q.prefix, mode: 'lexical', top: 10 });
    for (const q of warm) await search(q);
    const times: number[] = [];
    for (const q of qs) {
      const t = performance.now();
      await search(q);
      times.push(performance.now() - t);
    }
    return times;
  } finally {
    engine.close();
  }
}

const pct = (xs: number[]): [number, number, number] => {
  const s = [...xs].sort((a, b) => a - b);
  return [percentile(s, 50), percentile(s, 95), percentile(s, 99)];
};
const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');
/** A share, or – where none was measured (not 1: that would say exact). */
const f2 = (x: number | undefined): string => (x === undefined ? '–' : x.toFixed(2));

export async function benchVocabularies(): Promise<BenchResult> {
  const bytes = Number(process.env.KB_VOCAB_MB ?? 60) * 1e6;
  const perClass = Number(process.env.KB_VOCAB_QUERIES ?? 150);
  const exactPerClass = Number(process.env.KB_VOCAB_EXACT ?? 15);
  const only = process.env.KB_VOCAB_ONLY?.split(',');
  const tantivy = tantivyPython();
  const lines: string[] = [];
  const checks: Check[] = [];
  if ('missing' in tantivy) lines.push(`Tantivy could not be installed (${tantivy.missing}): kb alone`);
  for (const corpus of VOCAB_CORPORA.filter((c) => !only || only.includes(c.name))) {
    const data = await built(corpus.name, corpus.write, bytes);
    const passages = passagesOf(data);
    const text = passages.reduce((n, p) => n + Buffer.byteLength(p), 0);
    const qs = benchQueries(passages, perClass);
    const kb = await kbTimes(data, qs, benchQueries(passages, perClass, 7));
    const exact = exactPerClass > 0 ? await exactness(data, qs, exactPerClass) : null;
    const kbBytes = fileSize(join(data, 'kb.sqlite')) + fileSize(join(data, 'kb.sqlite-wal'));
    let tv: TantivyRun | null = null;
    if ('py' in tantivy) {
      const root = benchDir(`vocab-${corpus.name}`);
      writeFileSync(join(root, 'passages.jsonl'), passages.map((p) => JSON.stringify(p)).join('\n') + '\n');
      writeFileSync(join(root, 'queries.json'), JSON.stringify(qs));
      const out = execFileSync(
        tantivy.py,
        [join(repoRoot, 'bench', 'tantivy', 'run.py'), join(root, 'passages.jsonl'), join(root, 'queries.json'), join(root, 'tantivy')],
        { maxBuffer: 64 * 1024 * 1024, encoding: 'utf8' },
      );
      tv = JSON.parse(out) as TantivyRun;
    }
    lines.push(
      `${corpus.name} (${corpus.about}): ${passages.length.toLocaleString('en')} passages, ${(text / 1e6).toFixed(0)} MB of text; ` +
        `kb's index ${(kbBytes / text).toFixed(2)}× the text` +
        (tv ? `, Tantivy's ${(tv.index_bytes / text).toFixed(2)}× (built in ${tv.build_s.toFixed(0)} s, one thread)` : ''),
    );
    lines.push(
      `  ${'class'.padEnd(14)} kb p50 / p95 / p99 ms${tv ? '   Tantivy p50 / p95 / p99 ms   kb ÷ Tantivy p50, p95' : ''}` +
        (exact ? '   kb top 10 as good as every match scored' : ''),
    );
    for (const cls of ['all', ...QUERY_CLASSES] as const) {
      const pick = (xs: number[]): number[] => xs.filter((_, i) => cls === 'all' || qs[i]!.cls === cls);
      const k = pct(pick(kb));
      const t = tv ? pct(pick(tv.times)) : null;
      lines.push(
        `  ${cls.padEnd(14)} ${k.map(f1).join(' / ').padEnd(21)}` +
          (t ? `   ${t.map(f1).join(' / ').padEnd(26)}   ${`${(k[0] / t[0]).toFixed(1)}×, ${(k[1] / t[1]).toFixed(1)}×`.padEnd(22)}` : '') +
          (exact && cls !== 'all' ? `   ${f2(exact.get(cls))}` : ''),
      );
      if (cls === 'all') continue;
      checks.push({ what: `${corpus.name}: ${cls} p95 in-process`, value: k[1], target: 25, better: 'lower', unit: 'ms' });
      if (t) checks.push({ what: `${corpus.name}: ${cls} p95, kb ÷ Tantivy`, value: k[1] / t[1], target: 2, better: 'lower', unit: '×' });
    }
    const words = kb.filter((_, i) => qs[i]!.cls !== 'prefix');
    checks.push({
      what: `${corpus.name}: lexical p95 (every class but prefix)`,
      value: pct(words)[1],
      target: 15,
      better: 'lower',
      unit: 'ms',
    });
    checks.push({ what: `${corpus.name}: index size ÷ text`, value: kbBytes / text, target: 1.5, better: 'lower', unit: '×' });
  }
  return { name: 'vocabularies', lines, checks };
}
