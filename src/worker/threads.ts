// Where a worker thread's code is: bundled into dist/ beside the CLI (this module may sit in dist/ or
// dist/chunks/), or the TypeScript source, run through tsx, when the engine itself runs from source.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ThreadEntry {
  url: URL;
  execArgv: string[];
}

/**
 * `source` is the module relative to src/worker, without extension ('ingest/parse-thread'); `bundled`
 * is its name in dist/ when that differs (the worker process: src/worker/main.ts → dist/worker.js).
 */
export function threadEntry(source: string, bundled?: string): ThreadEntry | null {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL(`./${source}.ts`, here), execArgv: ['--import', 'tsx'] };
  const name = bundled ?? source.split('/').pop()!;
  for (const rel of [`./${name}.js`, `../${name}.js`]) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url, execArgv: [] };
  }
  return null;
}

/** The worker process's entry (see main.ts), for hosts that spawn it: the web host, Electron's main. */
export function workerProcessEntry(): ThreadEntry | null {
  return threadEntry('main', 'worker');
}

/**
 * A file shipped as is beside the thread entries (not bundled): `source` relative to src/worker,
 * copied to dist/ and out/main/ under its base name by the builds.
 */
export function assetPath(source: string): string | null {
  const here = import.meta.url;
  const name = source.split('/').pop()!;
  const rels = here.endsWith('.ts') ? [`./${source}`] : [`./${name}`, `../${name}`];
  for (const rel of rels) {
    const path = fileURLToPath(new URL(rel, here));
    if (existsSync(path)) return path;
  }
  return null;
}
