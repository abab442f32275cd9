import { SCHEMA_VERSION } from '../../shared/wire.js';
import { DEFAULT_MODEL, type FileProgress } from '../../worker/index.js';
import { type GlobalOptions, withEngine } from '../context.js';
import { bold, dim, displayPath, line, printJson } from '../output.js';

export async function modelsListCommand(g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const r = await engine.listModels();
    if (g.json) {
      printJson(r);
      return;
    }
    for (const m of r.models) {
      const state = m.installed ? `installed ${((m.bytes ?? 0) / 1048576).toFixed(1)} MB` : dim('not installed');
      line(`${bold(m.id.padEnd(24))} ${String(m.dimension).padStart(4)}d ${String(m.max_tokens).padStart(4)} tokens  ${state}${m.id === DEFAULT_MODEL ? dim('  (default)') : ''}`);
    }
    if (!r.models.some((m) => m.installed)) line(dim(`Get one with: kb models pull ${DEFAULT_MODEL}`));
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
      if (g.json) printJson({ schema_version: SCHEMA_VERSION, model: m });
      else line(`Installed ${m.id} (${((m.bytes ?? 0) / 1048576).toFixed(1)} MB) in ${displayPath(m.path ?? '')}`);
    } finally {
      process.off('SIGINT', onSigint);
      bar?.stop();
    }
  });
}

export async function modelsImportCommand(dir: string, flags: { as?: string }, g: GlobalOptions): Promise<number> {
  return withEngine(g, async (engine) => {
    const m = await engine.importModel(dir, flags.as ?? DEFAULT_MODEL);
    if (g.json) printJson({ schema_version: SCHEMA_VERSION, model: m });
    else line(`Imported ${m.id} into ${displayPath(m.path ?? '')}`);
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
