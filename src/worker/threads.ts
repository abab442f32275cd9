// Where a worker thread's code is: bundled into dist/ beside the CLI (this module may sit in dist/ or
// dist/chunks/), or the TypeScript source, run through tsx, when the engine itself runs from source.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ThreadEntry {
  url: URL;
  execArgv: string[];
}

/** `source` is the thread's module relative to src/worker, without extension: 'ingest/parse-thread'. */
export function threadEntry(source: string): ThreadEntry | null {
  const here = import.meta.url;
  if (here.endsWith('.ts')) return { url: new URL(`./${source}.ts`, here), execArgv: ['--import', 'tsx'] };
  const name = source.split('/').pop()!;
  for (const rel of [`./${name}.js`, `../${name}.js`]) {
    const url = new URL(rel, here);
    if (existsSync(fileURLToPath(url))) return { url, execArgv: [] };
  }
  return null;
}
