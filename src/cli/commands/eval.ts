import { writeFile } from 'node:fs/promises';
import { compareRuns, runEval } from '../../worker/index.js';
import { type GlobalOptions, withClient } from '../context.js';
import { bold, dim, line, printJson, reportError } from '../output.js';

const pct = (x: number): string => x.toFixed(4);

export async function evalRunCommand(file: string, flags: { k?: number; mode?: string; out?: string }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const k = flags.k ?? 10;
    const run = await runEval(kb, file, { k, ...(flags.mode ? { mode: flags.mode } : {}) });
    if (flags.out) await writeFile(flags.out, JSON.stringify(run, null, 2) + '\n');
    if (g.json) {
      printJson(run);
      return;
    }
    for (const q of run.per_query) {
      const r = q.first_relevant_rank ? `#${q.first_relevant_rank}` : 'miss';
      line(`${r.padStart(5)}  ndcg ${pct(q.ndcg10)}  ${q.query}`);
    }
    line();
    line(
      `${bold(`${run.queries} queries`)}  recall@${run.k} ${pct(run.metrics.recall_at_k)}  MRR ${pct(run.metrics.mrr)}  nDCG@10 ${pct(run.metrics.ndcg_at_10)}`,
    );
    if (flags.out) line(dim(`saved to ${flags.out}; compare with: kb eval compare ${flags.out} OTHER.json`));
  });
}

export async function evalCompareCommand(a: string, b: string, g: GlobalOptions): Promise<number> {
  try {
    const c = compareRuns(a, b);
    if (g.json) printJson(c);
    else {
      for (const [name, m] of Object.entries(c.metrics)) {
        const sign = m.delta > 0 ? '+' : '';
        line(`${name.padEnd(12)} ${pct(m.a)} → ${pct(m.b)}  (${sign}${pct(m.delta)})`);
      }
      if (c.changed.length > 0) {
        line();
        line(bold('Queries whose nDCG@10 changed most:'));
        for (const q of c.changed.slice(0, 15)) line(`${q.delta > 0 ? '+' : ''}${pct(q.delta)}  ${q.query}`);
      }
    }
    return 0;
  } catch (e) {
    return reportError(e, g.json === true);
  }
}
