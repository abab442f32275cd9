// The import boundaries of docs/design.md are enforced by ESLint (eslint.config.js); each case here fails
// if its rule is taken out or stops biting.
import { ESLint } from 'eslint';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';
import { WORKER_LAYERS } from '../lint/worker-layers.js';

const eslint = new ESLint({ cwd: repoRoot });
const BOUNDARY_RULES = new Set([
  'kb/worker-layers',
  'no-restricted-properties',
  'no-restricted-imports',
  'no-restricted-syntax',
  'no-restricted-globals',
  '@typescript-eslint/no-restricted-imports',
]);

async function problems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  return (r?.messages ?? []).filter((m) => m.ruleId && BOUNDARY_RULES.has(m.ruleId)).map((m) => m.message);
}

describe('import boundaries', () => {
  it('lets the CLI use the engine facade but not its insides, statically or with import()', async () => {
    expect(await problems('src/cli/x.ts', "export { openEngine } from '../worker/index.js';\n")).toEqual([]);
    expect(await problems('src/cli/x.ts', "export const e = await import('../worker/index.js');\n")).toEqual([]);
    expect(await problems('src/cli/x.ts', "export { Repo } from '../worker/store/repo.js';\n")).toHaveLength(1);
    expect(await problems('src/cli/x.ts', "export const r = await import('../worker/store/repo.js');\n")).toHaveLength(1);
    expect(await problems('src/cli/x.ts', "export const r = await import('../worker/engine.js');\n")).toHaveLength(1);
  });

  it('keeps src/shared free of Node, its globals and other process folders', async () => {
    expect(await problems('src/shared/x.ts', "export { z } from 'zod';\n")).toEqual([]);
    expect(await problems('src/shared/x.ts', "export { readFile } from 'node:fs';\n")).toHaveLength(1);
    expect(await problems('src/shared/x.ts', "export const fs = await import('node:fs');\n")).toHaveLength(1);
    expect(await problems('src/shared/x.ts', "export { Engine } from '../worker/engine.js';\n")).toHaveLength(1);
    expect(await problems('src/shared/x.ts', 'export const home = process.env.HOME;\n')).toHaveLength(1);
    expect(await problems('src/shared/x.ts', "export const b = Buffer.from('x');\n")).toHaveLength(1);
  });

  it('keeps the worker from importing the CLI, either way', async () => {
    expect(await problems('src/worker/index.ts', "export { main } from '../cli/main.js';\n")).toHaveLength(1);
    expect(await problems('src/worker/index.ts', "export const m = await import('../cli/main.js');\n")).toHaveLength(1);
    expect(await problems('src/worker/index.ts', "export const s = await import('./store/repo.js');\n")).toEqual([]);
  });

  it('keeps native modules and the worker out of main and preload, including through import() and require()', async () => {
    expect(await problems('src/main/x.ts', "export { default } from 'better-sqlite3';\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "export const db = await import('better-sqlite3');\n")).toHaveLength(1);
    expect(
      await problems(
        'src/main/x.ts',
        "import { createRequire } from 'node:module';\nexport const db = createRequire(import.meta.url)('x') ?? require('@lancedb/lancedb');\n",
      ),
    ).toHaveLength(1);
    expect(await problems('src/preload/x.ts', "export const w = await import('../worker/engine.js');\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "export const fs = await import('node:fs');\n")).toEqual([]);
  });

  it('keeps the renderer to types from src/shared: no worker, no Node, no runtime import of shared', async () => {
    expect(await problems('src/renderer/x.ts', "export { Engine } from '../worker/engine.js';\n")).not.toEqual([]);
    expect(await problems('src/renderer/x.ts', "export const e = await import('../worker/engine.js');\n")).toHaveLength(1);
    expect(await problems('src/renderer/x.ts', "export const w = await import('../shared/wire.js');\n")).toHaveLength(1);
    expect(
      await problems(
        'src/renderer/x.ts',
        "import { SearchParamsSchema } from '../shared/wire.js';\nexport const s = SearchParamsSchema;\n",
      ),
    ).not.toEqual([]);
    expect(
      await problems('src/renderer/x.ts', "import type { SearchParams } from '../shared/wire.js';\nexport type P = SearchParams;\n"),
    ).toEqual([]);
    expect(await problems('src/renderer/x.ts', 'export const argv = process.argv;\n')).toHaveLength(1);
    // The one runtime module it shares with the preload: the RPC client, which holds no zod.
    expect(await problems('src/renderer/x.ts', "import { RpcCalls } from '../shared/rpc-client';\nexport const c = RpcCalls;\n")).toEqual(
      [],
    );
    // …and the table of document types (plain TypeScript too), for the type filter's words.
    expect(
      await problems('src/renderer/x.ts', "import { DOC_TYPE_TABLE } from '../shared/doc-types';\nexport const t = DOC_TYPE_TABLE;\n"),
    ).toEqual([]);
  });

  it('refuses an import() whose specifier it cannot read', async () => {
    expect(
      await problems('src/cli/x.ts', "const where = '../worker/store/repo.js';\nexport const r = await import(where);\n"),
    ).toHaveLength(1);
  });

  it('cites a file that exists in the repo', async () => {
    const [m] = await problems('src/worker/index.ts', "export { main } from '../cli/main.js';\n");
    const cited = /docs\/[\w.-]+\.md/.exec(m ?? '')?.[0];
    expect(cited).toBeDefined();
    expect(existsSync(join(repoRoot, cited!))).toBe(true);
  });
});

describe("the engine's layers", () => {
  it('lets an import run down the layers, and a member import a peer listed before it', async () => {
    expect(await problems('src/worker/engine.ts', "export { ingestPaths } from './ingest/pipeline.js';\n")).toEqual([]);
    expect(
      await problems(
        'src/worker/search/x.ts',
        "export { Core } from '../core.js';\nexport { VectorService } from '../vectors/service.js';\n",
      ),
    ).toEqual([]);
    expect(
      await problems(
        'src/worker/ingest/formats/x.ts',
        "export { Repo } from '../../store/repo.js';\nexport { chunkIdsFrom } from '../chunk/chunk-ids.js';\n",
      ),
    ).toEqual([]);
  });

  it('refuses an import that runs up, whether static, a type, re-exported or import()', async () => {
    expect(await problems('src/worker/store/x.ts', "export { Engine } from '../engine.js';\n")).toHaveLength(1);
    expect(
      await problems(
        'src/worker/embed/x.ts',
        "import type { Core } from '../core.js';\nimport type { Searcher } from '../search/search.js';\nexport type T = [Core, Searcher];\n",
      ),
    ).toHaveLength(1);
    expect(await problems('src/worker/search/x.ts', "export const r = await import('../read/inspect.js');\n")).toHaveLength(1);
    expect(await problems('src/worker/ingest/ocr/x.ts', "export * from '../../collections/sync.js';\n")).toHaveLength(1);
    // A peer listed after it in the same layer is above it too: vectors/ comes before search/.
    expect(await problems('src/worker/vectors/x.ts', "export { Searcher } from '../search/search.js';\n")).toHaveLength(1);
  });

  it('refuses a file in a folder no layer names, and an import of one', async () => {
    expect(await problems('src/worker/newfolder/x.ts', 'export const x = 1;\n')).toHaveLength(1);
    expect(await problems('src/worker/search/x.ts', "export { y } from '../newfolder/y.js';\n")).toHaveLength(1);
  });

  it('keeps SQL to store/: a statement prepared anywhere else is refused', async () => {
    expect(
      await problems(
        'src/worker/search/x.ts',
        "import type { Db } from '../store/db.js';\nexport const f = (db: Db) => db.prepare('SELECT 1');\n",
      ),
    ).toHaveLength(1);
    expect(
      await problems('src/worker/store/x.ts', "import type { Db } from './db.js';\nexport const f = (db: Db) => db.prepare('SELECT 1');\n"),
    ).toEqual([]);
  });

  it('keeps process.env to config/, where the environment is folded into the config', async () => {
    expect(await problems('src/worker/ollama.ts', 'export const host = process.env.KB_OLLAMA_HOST;\n')).toHaveLength(1);
    expect(await problems('src/worker/config/env.ts', 'export const host = process.env.KB_OLLAMA_HOST;\n')).toEqual([]);
  });

  it('holds the same table as docs/architecture.md', () => {
    const page = readFileSync(join(repoRoot, 'docs/architecture.md'), 'utf8');
    const rows = [...page.matchAll(/^\| (\w+) \| (`[^|]+`) \| [^|]+ \|$/gm)].map((m) => ({
      layer: m[1],
      members: [...m[2]!.matchAll(/`([^`]+)`/g)].map((x) => x[1]),
    }));
    expect(rows).toEqual(WORKER_LAYERS.map(({ layer, members }) => ({ layer, members })));
  });

  it('holds every file under src/worker', async () => {
    const { globSync } = await import('node:fs');
    const files = globSync('src/worker/**/*.ts', { cwd: repoRoot });
    const placed = new Set(WORKER_LAYERS.flatMap((l) => l.members));
    const unplaced = files
      .map((f) => f.slice('src/worker/'.length))
      .filter((f) => !placed.has(f.includes('/') ? `${f.split('/')[0]}/` : f));
    expect(unplaced).toEqual([]);
    expect(files.length).toBeGreaterThan(100);
  });
});
