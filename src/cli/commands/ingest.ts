import { existsSync } from 'node:fs';
import { KbError } from '../../shared/errors.js';
import type { IngestProgress } from '../../shared/wire.js';
import { type GlobalOptions, splitList, withClient } from '../context.js';
import { EXIT, dim, displayPath, line, printJson, red, reportError, yellow } from '../output.js';
import { countBar } from '../progress.js';
import { plural } from '../../shared/words.js';

export async function ingestCommand(
  paths: string[],
  flags: { tags?: string; force?: boolean; collection?: string },
  g: GlobalOptions,
): Promise<number> {
  // A path that is not there is a mistake in the command, not a file that failed: say so, add nothing.
  const missing = paths.filter((p) => !existsSync(p));
  if (missing.length > 0) return reportError(new KbError('NOT_FOUND', `no such file or folder: ${missing.join(', ')}`), g.json === true);
  return withClient(g, async (kb) => {
    const bar = await countBar(g);
    const onProgress = (p: IngestProgress): void => {
      if (p.phase === 'ingest') bar?.update('ingesting', p.done, p.total, p.path);
      else if (p.phase === 'ocr') bar?.update('OCR', p.done, p.total, p.path);
      else if (p.phase === 'transcribe') bar?.update('transcribing (s)', p.done, p.total, p.path);
      else if (p.phase === 'embed' && p.total > 0) bar?.update('embedding', p.done, p.total);
    };
    const controller = new AbortController();
    const onSigint = (): void => controller.abort();
    process.once('SIGINT', onSigint);
    let summary;
    try {
      summary = await kb.ingest(
        { paths, tags: splitList(flags.tags), force: flags.force === true, ...(flags.collection ? { collection: flags.collection } : {}) },
        { onProgress, signal: controller.signal },
      );
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
    if (g.json) printJson(summary);
    else {
      for (const s of summary.skipped) line(dim(`skipped ${displayPath(s.path)}: ${s.reason}`));
      for (const e of summary.errors) line(`${red('failed')} ${displayPath(e.path)}: ${e.message} ${dim(`(${e.code})`)}`);
      for (const w of summary.warnings) line(`${yellow('warning')} ${displayPath(w.path)}: ${w.message} ${dim(`(${w.code})`)}`);
      const moved = summary.moved > 0 ? ` (${summary.moved} moved)` : '';
      line(
        `Added ${summary.added}, updated ${summary.updated}${moved}, unchanged ${summary.unchanged}, failed ${summary.failed}` +
          dim(` in ${(summary.took_ms / 1000).toFixed(1)} s`),
      );
      if (summary.ocr) {
        const o = summary.ocr;
        const rest = o.pending > 0 ? yellow(`, ${o.pending} still to do (run the same command to finish)`) : '';
        line(dim(`OCR: read ${plural(o.pages, 'page')}${o.failed ? `, ${o.failed} failed` : ''}`) + rest);
      }
      if (summary.transcribed) {
        const t = summary.transcribed;
        const parts = [
          t.files && `transcribed ${plural(t.files, 'audio file')}`,
          t.failed && `${t.failed} failed`,
          t.pending && `${t.pending} still to do (run the same command to finish)`,
        ].filter(Boolean);
        if (parts.length) line(dim(`Audio: ${parts.join(', ')}`));
        if (t.waiting)
          line(
            yellow(
              `${plural(t.waiting, 'audio file')} ${t.waiting === 1 ? 'waits' : 'wait'} for a speech model: kb models pull ${t.speech_model ?? ''}`,
            ),
          );
      }
      if (summary.vector?.status === 'unavailable') {
        const reason = summary.vector.reason ?? '';
        line(
          reason.startsWith('no embedding model') ? dim(`(search is by words only: ${reason})`) : yellow(`Vectors not updated: ${reason}`),
        );
      } else if (summary.embedded) line(dim(`Embedded ${plural(summary.embedded, 'chunk')}`));
      if (controller.signal.aborted) line(yellow('Interrupted: the files above were indexed; run the same command to finish.'));
    }
    // Vector index upkeep started by the ingest: finish it here, or the next search pays for it.
    const notice = g.json ? null : setTimeout(() => line(dim('Updating the vector index for fast search…')), 500);
    await kb.settled();
    if (notice) clearTimeout(notice);
    // Interrupted is not done: a script must not take a half-read folder for a finished one.
    return controller.signal.aborted ? EXIT.interrupted : summary.failed > 0 ? EXIT.partial : EXIT.ok;
  });
}
