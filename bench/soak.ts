// `npm run bench -- soak`: the model-based test of the index (test/support/index-model.ts) run long —
// seeds × steps of random operations on SQLite and on a throwaway PostgreSQL cluster, every invariant
// checked after every step; every other SQLite seed starts from an index an older kb wrote. KB_SOAK_SEEDS (default 8), KB_SOAK_STEPS (default 200), KB_SOAK_FROM (the
// first seed, default 1000) choose the runs; a failure names its seed and step, to be replayed.
import { openEngine } from '../src/worker/index.js';
import { IndexModel } from '../test/support/index-model.js';
import { postgresAvailable, startCluster } from '../test/support/postgres.js';
import { freshDir, type BenchResult } from './util.js';

interface Runs {
  clean: number;
  steps: number;
  failures: string[];
  ops: Record<string, number>;
  ms: number;
}

async function soak(store: 'sqlite' | 'postgres', seeds: number[], steps: number, url?: () => Promise<string>): Promise<Runs> {
  const runs: Runs = { clean: 0, steps: 0, failures: [], ops: {}, ms: 0 };
  const t0 = performance.now();
  for (const seed of seeds) {
    const dir = await freshDir(`soak-${store}-${seed}`);
    const u = url ? await url() : undefined;
    let done = 0;
    try {
      const r = await new IndexModel({
        seed,
        steps,
        dir,
        open: (dataDir) => openEngine({ dataDir, config: u ? { store: { url: u } } : {} }),
        childEnv: u ? { KB_STORE: u } : {},
        // Every other SQLite seed starts from an index an older kb wrote, upgraded under the steps.
        ...(store === 'sqlite' && seed % 2 === 1 ? { old: 21_000 } : {}),
        log: () => done++,
      }).run();
      runs.clean++;
      for (const [op, n] of Object.entries(r.ops)) runs.ops[op] = (runs.ops[op] ?? 0) + n;
    } catch (e) {
      runs.failures.push((e as Error).message.slice(0, 500));
    }
    runs.steps += done;
    console.log(`soak ${store} seed ${seed}: ${done} steps clean`);
  }
  runs.ms = performance.now() - t0;
  return runs;
}

export async function benchSoak(): Promise<BenchResult> {
  const count = Number(process.env.KB_SOAK_SEEDS ?? 8);
  const steps = Number(process.env.KB_SOAK_STEPS ?? 200);
  const from = Number(process.env.KB_SOAK_FROM ?? 1000);
  const seeds = Array.from({ length: count }, (_, i) => from + i);
  const lines: string[] = [];
  const say = (store: string, r: Runs): void => {
    lines.push(
      `${store}: ${r.clean} of ${seeds.length} seeds clean, ${r.steps} steps ran clean (of ${seeds.length * steps}) in ${(r.ms / 60000).toFixed(1)} min`,
      `  ops: ${Object.entries(r.ops)
        .sort((a, b) => b[1] - a[1])
        .map(([op, n]) => `${op} ${n}`)
        .join(', ')}`,
      ...r.failures.map((f) => `  FAILED ${f}`),
    );
  };
  const sqlite = await soak('sqlite', seeds, steps);
  say('SQLite', sqlite);
  let pgClean = 0;
  if (postgresAvailable()) {
    const cluster = await startCluster();
    try {
      const pg = await soak('postgres', seeds, steps, () => cluster.database());
      say('PostgreSQL', pg);
      pgClean = pg.clean;
    } finally {
      cluster.stop();
    }
  } else lines.push('PostgreSQL: skipped (no server here)');
  return {
    name: 'soak',
    lines,
    checks: [
      { what: 'SQLite seeds clean', value: sqlite.clean, target: seeds.length, better: 'higher' },
      { what: 'PostgreSQL seeds clean', value: pgClean, target: seeds.length, better: 'higher' },
    ],
  };
}
