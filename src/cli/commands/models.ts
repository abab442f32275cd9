import { resolve } from 'node:path';
import type { ModelPullProgress, Result } from '../../shared/api.js';
import { KbError } from '../../shared/errors.js';
import type { Transcribed } from '../../shared/wire.js';
import { plural } from '../../shared/words.js';
import { DEFAULT_MODEL, type LocalClient } from '../../worker/index.js';
import { countBar } from '../progress.js';
import { embeddingRun } from './reindex.js';
import { type GlobalOptions, withClient } from '../context.js';
import { EXIT, bold, dim, displayPath, line, printJson, reportError } from '../output.js';
import { formatBytes } from '../../shared/bytes.js';

export async function modelsListCommand(g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['models.list']({});
    if (g.json) {
      printJson(r);
      return;
    }
    const state = (m: { installed: boolean; bytes: number | null; source: string }): string =>
      (m.installed ? `installed ${formatBytes(m.bytes ?? 0)}` : dim('not installed')) +
      (m.source === 'imported' ? dim('  (imported)') : '');
    line(bold('Embedding models (search by meaning)'));
    for (const m of r.models.filter((x) => x.kind === 'embedding')) {
      line(
        `  ${bold(m.id.padEnd(24))} ${String(m.dimension).padStart(4)}d ${String(m.max_tokens).padStart(4)} tokens  ${state(m)}${tags(m, r.in_use.embedding, DEFAULT_MODEL)}`,
      );
    }
    if (!r.models.some((m) => m.installed && m.kind === 'embedding')) line(dim(`  Get one with: kb models pull ${DEFAULT_MODEL}`));
    if (r.in_use.embedding.startsWith('ollama:')) line(`  ${bold(r.in_use.embedding.padEnd(24))} served by Ollama  ${bold('in use')}`);
    else line(dim('  Or one your Ollama serves: kb models use ollama:nomic-embed-text'));
    line(bold('Rerankers (re-score the best hits: kb search --rerank)'));
    for (const m of r.models.filter((x) => x.kind === 'reranker'))
      line(`  ${bold(m.id.padEnd(24))} ${String(m.max_tokens).padStart(10)} tokens  ${state(m)}${tags(m, r.in_use.reranker)}`);
    line(bold('Speech models (audio and video)'));
    for (const m of r.speech_models) {
      const state = m.installed ? `installed ${formatBytes(m.bytes ?? 0)}` : dim('not installed');
      line(`  ${bold(m.id.padEnd(24))} ${m.about.padEnd(38)} ${state}${tags(m, r.in_use.speech, 'whisper-base.en')}`);
    }
    if (!r.speech_models.some((m) => m.installed)) line(dim('  Get one with: kb models pull whisper-base.en'));
  });
}

/** "  in use" (or "  chosen", not installed), "  (default)", both or neither: what the configuration uses. */
function tags(m: { id: string; installed: boolean }, inUse: string | null, byDefault?: string): string {
  // Chosen but not installed is not "in use": nothing searches or transcribes with it yet.
  const using = m.id !== inUse ? '' : m.installed ? `  ${bold('in use')}` : dim('  chosen');
  return using + (m.id === byDefault ? dim('  (default)') : '');
}

export async function modelsPullCommand(id: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const bar = process.stderr.isTTY && !g.json ? await progressBar() : null;
    const ctl = new AbortController();
    const onSigint = (): void => ctl.abort();
    process.once('SIGINT', onSigint);
    try {
      return await installed(
        kb,
        g,
        () => kb['models.pull']({ name: id }, { onProgress: bar?.update, signal: ctl.signal }),
        (m) => {
          bar?.stop();
          return `Installed ${m.id} (${formatBytes(m.bytes ?? 0)}) in ${displayPath(m.path ?? '')}`;
        },
      );
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
  });
}

/** A folder is an embedding model (Hugging Face layout); a file is a speech model (whisper.cpp ggml). */
export async function modelsImportCommand(path: string, flags: { as?: string }, g: GlobalOptions): Promise<number> {
  return withClient(g, (kb) =>
    installed(
      kb,
      g,
      () => kb['models.import']({ path: resolve(path), ...(flags.as ? { as: flags.as } : {}) }),
      (m) => `Imported ${m.id} into ${displayPath(m.path ?? '')}`,
    ),
  );
}

type Installed = Result<'models.pull'>;

/**
 * A model installed, and what its arrival starts followed to the end with a progress bar: audio that
 * waited for this speech model is transcribed; with the configured embedding model, every chunk is
 * embedded. The app hears the same work as background events; a command waits for it.
 */
async function installed(
  kb: LocalClient,
  g: GlobalOptions,
  install: () => Promise<Installed>,
  said: (m: Installed['model']) => string,
): Promise<number> {
  const bar = await countBar(g);
  let transcribed: Transcribed | undefined;
  let failed: string | undefined;
  // Listening before the call: the work starts as it answers.
  const off = kb.on('background', (e) => {
    if (e.phase === 'running') bar?.update(e.task === 'transcribing' ? 'transcribing (s)' : 'embedding', e.done, e.total);
    else if (e.phase === 'failed') failed = e.message ?? 'failed';
    else if (e.transcribed) transcribed = e.transcribed;
  });
  try {
    const r = await install();
    if (!g.json) line(said(r.model));
    await kb.settled();
    bar?.stop();
    // The model is in place either way; the work it started failing is the command's error.
    if (failed !== undefined)
      return reportError(new KbError('INTERNAL', `the work after the model arrived failed: ${failed}`), g.json === true);
    // Files that were read, or failed to be: said as the command that made them readable.
    const read = transcribed && transcribed.files + transcribed.failed + transcribed.pending > 0 ? transcribed : undefined;
    if (g.json) printJson({ ...r, ...(read ? { transcribed: read } : {}) });
    else if (read)
      line(
        `Transcribed ${plural(read.files, 'audio file')} that waited for a speech model${read.failed ? `; ${read.failed} failed (kb ls shows why)` : ''}`,
      );
    return EXIT.ok;
  } finally {
    off();
    bar?.stop();
  }
}

export async function modelsUseCommand(name: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await embeddingRun(g, ({ signal, onProgress }) => kb['models.use']({ name }, { signal, onProgress }));
    if (g.json) printJson(r);
    else if (r.kind === 'speech')
      line(
        `Recordings are transcribed with ${r.model} from kb's next start` +
          dim(` (audio.model in ${displayPath(r.config_updated)}; the app and kb serve take it when they restart)`),
      );
    else if (r.kind === 'reranker')
      line(
        `Searches are reranked by ${r.model} now` +
          dim(` (rerank.model and search.rerank in ${displayPath(r.config_updated)}; kb search --no-rerank skips it)`),
      );
    else if (r.cancelled) line(`Interrupted: searches still use ${r.previous ?? 'no'} vectors. Run kb models use ${name} again to resume.`);
    else if (r.embedded === 0 && r.previous === r.model)
      line(`${r.model} is in use` + (r.config_updated ? dim(` (now in ${displayPath(r.config_updated)})`) : ''));
    else
      line(
        `Searching by meaning with ${r.model}${r.previous && r.previous !== r.model ? ` (was ${r.previous})` : ''}: embedded ${r.embedded} chunks` +
          dim(` in ${(r.took_ms / 1000).toFixed(1)} s`),
      );
    return r.kind === 'embedding' && r.cancelled ? EXIT.interrupted : EXIT.ok;
  });
}

export async function modelsRemoveCommand(id: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await kb['models.remove']({ name: id });
    if (g.json) printJson(r);
    else line(`Removed ${r.removed}`);
  });
}

async function progressBar(): Promise<{ update: (p: ModelPullProgress) => void; stop: () => void }> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    { format: '{file} [{bar}] {percentage}% {mb} MB', hideCursor: true, clearOnComplete: true, stream: process.stderr },
    cliProgress.Presets.shades_classic,
  );
  let current = '';
  let stopped = true;
  return {
    update: (p) => {
      if (p.file !== current) {
        if (!stopped) bar.stop();
        bar.start(p.total ?? p.received, 0, { file: p.file, mb: '0.0' });
        current = p.file;
        stopped = false;
      }
      bar.setTotal(Math.max(p.total ?? p.received, p.received));
      bar.update(p.received, { file: p.file, mb: (p.received / 1e6).toFixed(1) });
    },
    stop: () => {
      if (!stopped) bar.stop();
      stopped = true;
    },
  };
}
