// kb's versions: the app's, read once from its package.json: the nearest one above this module, whether it runs
// from src/, dist/ (the CLI bundle) or out/main/ (the Electron build).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function find(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === 'kb' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // no package.json here: look further up
    }
    const up = dirname(dir);
    if (up === dir) return '0.0.0';
    dir = up;
  }
}

export const KB_VERSION = find();

/** Bump when a parser's output for the same bytes changes, so documents are re-chunked. */
export const PARSER_VERSION = 3;
/** Bump when chunks are cut differently: stored with each chunk and each vector table's binding. */
export const CHUNKER_VERSION = 1;
