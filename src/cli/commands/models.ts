import { SCHEMA_VERSION } from '../../shared/wire.js';
import { existsSync, statSync } from 'node:fs';
import { DEFAULT_MODEL, type Engine, type FileProgress } from '../../worker/index.js';
import { countBar } from '../progress.js';
import { embeddingRun } from './reindex.js';
import { type GlobalOptions, withClient, withEngine } from '../context.js';
import type { ReindexProgress } from '../../shared/wire.js';
import { EXIT, bold, dim, displayPath, line, printJson } from '../output.js';

export async function modelsListCommand(g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const r = await engine.listModels();
    if (g.json) {
      printJson(r);
      return;
    }
    const state = (m: { installed: boolean; bytes: number | null; source: string }): string =>
      (m.installed ? `installed ${((m.bytes ?? 0) / 1048576).toFixed(1)} MB` : dim('not installed')) +
      (m.source === 'imported' ? dim('  (imported)') : '');
    line(bold('Embedding models (search by meaning)'));
    for (const m of r.models.filter((x) => x.kind === 'embedding')) {
      line(
        `  ${bold(m.id.padEnd(24))} ${String(m.dimension).padStart(4)}d ${String(m.max_tokens).padStart(4)} tokens  ${state(m)}${m.id === DEFAULT_MODEL ? dim('  (default)') : ''}`,
      );
    }
    if (!r.models.some((m) => m.installed && m.kind === 'embedding')) line(dim(`  Get one with: kb models pull ${DEFAULT_MODEL}`));
    line(dim('  Or one your Ollama serves: kb models use ollama:nomic-embed-text'));
    line(bold('Rerankers (re-score the best hits: kb search --rerank)'));
    for (const m of r.models.filter((x) => x.kind === 'reranker'))
      line(`  ${bold(m.id.padEnd(24))} ${String(m.max_tokens).padStart(10)} tokens  ${state(m)}`);
    line(bold('Speech models (audio and video)'));
    for (const m of r.speech_models) {
      const state = m.installed ? `installed ${((m.bytes ?? 0) / 1048576).toFixed(1)} MB` : dim('not installed');
      line(`  ${bold(m.id.padEnd(24))} ${m.about.padEnd(38)} ${state}${m.id === 'whisper-base.en' ? dim('  (default)') : ''}`);
    }
    if (!r.speech_models.some((m) => m.installed)) line(dim('  Get one with: kb models pull whisper-base.en'));
  });
}

export async function modelsPullCommand(id: string, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const bar = process.stderr.isTTY && !g.json ? await progressBar() : null;
    const ctl = new AbortController();
    const onSigint = (): void => ctl.abort();
    process.once('SIGINT', onSigint);
    try {
      const m = await engine.pullModel(id, { onProgress: bar?.update, signal: ctl.signal });
      bar?.stop();
      if (!g.json) line(`Installed ${m.id} (${((m.bytes ?? 0) / 1048576).toFixed(1)} MB) in ${displayPath(m.path ?? '')}`);
      const transcribed = id.startsWith('whisper-') ? await transcribeWaiting(engine, g) : undefined;
      if (g.json) printJson({ schema_version: SCHEMA_VERSION, model: m, ...(transcribed ? { transcribed } : {}) });
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
  });
}

/** A folder is an embedding model (Hugging Face layout); a file is a speech model (whisper.cpp ggml). */
export async function modelsImportCommand(path: string, flags: { as?: string }, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const speech = existsSync(path) && statSync(path).isFile();
    const m = await engine.importModel(path, flags.as);
    if (!g.json) line(`Imported ${m.id} into ${displayPath(m.path ?? '')}`);
    const transcribed = speech ? await transcribeWaiting(engine, g) : undefined;
    if (g.json) printJson({ schema_version: SCHEMA_VERSION, model: m, ...(transcribed ? { transcribed } : {}) });
  });
}

/** With a speech model in place, what waited for one is read now, with a progress bar. */
async function transcribeWaiting(
  engine: Engine,
  g: GlobalOptions,
): Promise<{ files: number; failed: number; pending: number; waiting: number } | undefined> {
  if (!engine.speechModelReady() || engine.list().every((d) => d.status !== 'waiting')) return undefined;
  const bar = await countBar(g);
  try {
    const t = await engine.transcribePending({
      onProgress: (p) => p.phase === 'transcribe' && bar?.update('transcribing (s)', p.done, p.total, p.path),
    });
    bar?.stop();
    if (!g.json)
      line(
        `Transcribed ${t.files} audio file${t.files === 1 ? '' : 's'} that waited for a speech model${t.failed ? `; ${t.failed} failed (kb ls shows why)` : ''}`,
      );
    return t;
  } finally {
    bar?.stop();
  }
}

export async function modelsUseCommand(name: string, g: GlobalOptions): Promise<number> {
  return withClient(g, async (kb) => {
    const r = await embeddingRun(g, ({ signal, onProgress }) =>
      kb['models.use']({ name }, { signal, onProgress: (p) => onProgress(p as ReindexProgress) }),
    );
    if (g.json) printJson(r);
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
    return r.kind === 'embedding' && r.cancelled ? EXIT.partial : EXIT.ok;
  });
}

export async function modelsRemoveCommand(id: string, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    await engine.removeModel(id);
    if (g.json) printJson({ schema_version: SCHEMA_VERSION, removed: id });
    else line(`Removed ${id}`);
  });
}

async function progressBar(): Promise<{ update: (p: FileProgress) => void; stop: () => void }> {
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
      bar.update(p.received, { file: p.file, mb: (p.received / 1048576).toFixed(1) });
    },
    stop: () => {
      if (!stopped) bar.stop();
      stopped = true;
    },
  };
}
