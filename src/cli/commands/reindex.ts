import { type GlobalOptions, withClient } from '../context.js';
import { EXIT, dim, displayPath, line, printJson, yellow } from '../output.js';
import { countBar } from '../progress.js';
import { plural } from '../../shared/words.js';
import type { ReindexProgress } from '../../shared/wire.js';

/** Embedding everything with a progress bar; Ctrl-C stops it without switching (the next run resumes). */
export async function embeddingRun<T>(
  g: GlobalOptions,
  run: (opts: { onProgress: (p: ReindexProgress) => void; signal: AbortSignal }) => Promise<T>,
): Promise<T> {
  const bar = await countBar(g);
  const ctl = new AbortController();
  const onSigint = (): void => ctl.abort();
  process.once('SIGINT', onSigint);
  try {
    return await run({ onProgress: (p) => bar?.update('embedding', p.done, p.total), signal: ctl.signal });
  } finally {
    process.off('SIGINT', onSigint);
    bar?.stop();
  }
}

export async function reindexCommand(flags: { model?: string }, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await embeddingRun(g, ({ signal, onProgress }) =>
      kb.reindex(flags.model ? { model: flags.model } : {}, { signal, onProgress }),
    );
    if (g.json) printJson(r);
    else if (r.cancelled) {
      line(
        yellow(
          `Interrupted after ${plural(r.resumed + r.embedded, 'chunk')}: searches still use the previous vectors. Run kb reindex again to resume.`,
        ),
      );
    } else {
      const resumed = r.resumed > 0 ? ` (${r.resumed} kept from an interrupted run)` : '';
      const from = r.previous && r.previous !== r.model ? ` (was ${r.previous})` : '';
      line(
        `Reindexed with ${r.model}${from}: embedded ${plural(r.embedded, 'chunk')}${resumed}` +
          dim(` in ${(r.took_ms / 1000).toFixed(1)} s`),
      );
      if (r.config_updated) line(dim(`embedding.model is now ${r.model} in ${displayPath(r.config_updated)}`));
    }
    return r.cancelled ? EXIT.interrupted : EXIT.ok;
  });
}
