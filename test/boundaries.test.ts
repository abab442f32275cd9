// The import boundaries of design.md are enforced by ESLint (eslint.config.js); each case here fails
// if its rule is taken out or stops biting.
import { ESLint } from 'eslint';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

const eslint = new ESLint({ cwd: repoRoot });
const BOUNDARY_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax', 'no-restricted-globals', '@typescript-eslint/no-restricted-imports']);

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
    expect(await problems('src/worker/x.ts', "export { main } from '../cli/main.js';\n")).toHaveLength(1);
    expect(await problems('src/worker/x.ts', "export const m = await import('../cli/main.js');\n")).toHaveLength(1);
    expect(await problems('src/worker/x.ts', "export const s = await import('./store/repo.js');\n")).toEqual([]);
  });

  it('keeps native modules and the worker out of main and preload, including through import() and require()', async () => {
    expect(await problems('src/main/x.ts', "export { default } from 'better-sqlite3';\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "export const db = await import('better-sqlite3');\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "import { createRequire } from 'node:module';\nexport const db = createRequire(import.meta.url)('x') ?? require('@lancedb/lancedb');\n")).toHaveLength(1);
    expect(await problems('src/preload/x.ts', "export const w = await import('../worker/engine.js');\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "export const fs = await import('node:fs');\n")).toEqual([]);
  });

  it('keeps the renderer to types from src/shared: no worker, no Node, no runtime import of shared', async () => {
    expect(await problems('src/renderer/x.ts', "export { Engine } from '../worker/engine.js';\n")).not.toEqual([]);
    expect(await problems('src/renderer/x.ts', "export const e = await import('../worker/engine.js');\n")).toHaveLength(1);
    expect(await problems('src/renderer/x.ts', "export const w = await import('../shared/wire.js');\n")).toHaveLength(1);
    expect(await problems('src/renderer/x.ts', "import { SearchParamsSchema } from '../shared/wire.js';\nexport const s = SearchParamsSchema;\n")).not.toEqual([]);
    expect(await problems('src/renderer/x.ts', "import type { SearchParams } from '../shared/wire.js';\nexport type P = SearchParams;\n")).toEqual([]);
    expect(await problems('src/renderer/x.ts', 'export const argv = process.argv;\n')).toHaveLength(1);
    // The one runtime module it shares with the preload: the RPC client, which holds no zod.
    expect(await problems('src/renderer/x.ts', "import { RpcCalls } from '../shared/rpc-client';\nexport const c = RpcCalls;\n")).toEqual([]);
  });

  it('refuses an import() whose specifier it cannot read', async () => {
    expect(await problems('src/cli/x.ts', "const where = '../worker/store/repo.js';\nexport const r = await import(where);\n")).toHaveLength(1);
  });

  it('cites a file that exists in the repo', async () => {
    const [m] = await problems('src/worker/x.ts', "export { main } from '../cli/main.js';\n");
    const cited = /docs\/[\w.-]+\.md/.exec(m ?? '')?.[0];
    expect(cited).toBeDefined();
    expect(existsSync(join(repoRoot, cited!))).toBe(true);
  });
});
