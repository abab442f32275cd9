import type { IngestProgress } from '../../shared/wire.js';
import { type GlobalOptions, splitList, withEngine } from '../context.js';
import { EXIT, dim, displayPath, line, printJson, red, yellow } from '../output.js';

export async function ingestCommand(paths: string[], flags: { tags?: string }, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const bar = process.stderr.isTTY && !g.json ? await makeBar() : null;
    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once('SIGINT', onSigint);
    let summary;
    try {
      summary = await engine.ingest(paths, { tags: splitList(flags.tags), onProgress: bar?.update, signal: controller.signal });
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
    if (g.json) printJson(summary);
    else {
      for (const s of summary.skipped) line(dim(`skipped ${displayPath(s.path)}: ${s.reason}`));
      for (const e of summary.errors) line(`${red('failed')} ${displayPath(e.path)}: ${e.message} ${dim(`(${e.code})`)}`);
      const moved = summary.moved > 0 ? ` (${summary.moved} moved)` : '';
      line(
        `Added ${summary.added}, updated ${summary.updated}${moved}, unchanged ${summary.unchanged}, failed ${summary.failed}` +
          dim(` in ${(summary.took_ms / 1000).toFixed(1)} s`),
      );
      if (controller.signal.aborted) line(yellow('Interrupted: the files above were indexed; run the same command to finish.'));
    }
    return summary.failed > 0 ? EXIT.partial : EXIT.ok;
  });
}

async function makeBar(): Promise<{ update: (p: IngestProgress) => void; stop: () => void }> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    { format: 'ingesting [{bar}] {value}/{total} {file}', hideCursor: true, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update: (p) => {
      if (p.phase !== 'ingest') return;
      if (!started) {
        bar.start(p.total, 0, { file: '' });
        started = true;
      }
      const file = p.path ? displayPath(p.path) : '';
      bar.update(p.done, { file: file.length > 40 ? '…' + file.slice(-39) : file });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
