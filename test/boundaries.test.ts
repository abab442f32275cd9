// The import boundaries of design.md are enforced by ESLint; this proves the rule bites.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

const eslint = new ESLint({ cwd: repoRoot });

async function problems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  return (r?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('import boundaries', () => {
  it('lets the CLI use the engine facade but not its insides', async () => {
    expect(await problems('src/cli/x.ts', "export { openEngine } from '../worker/index.js';\n")).toEqual([]);
    expect(await problems('src/cli/x.ts', "export { Repo } from '../worker/store/repo.js';\n")).toHaveLength(1);
  });

  it('keeps src/shared free of Node and of other process folders', async () => {
    expect(await problems('src/shared/x.ts', "export { z } from 'zod';\n")).toEqual([]);
    expect(await problems('src/shared/x.ts', "export { readFile } from 'node:fs';\n")).toHaveLength(1);
    expect(await problems('src/shared/x.ts', "export { Engine } from '../worker/engine.js';\n")).toHaveLength(1);
  });

  it('keeps the worker from importing the CLI, and main/renderer from native modules and the worker', async () => {
    expect(await problems('src/worker/x.ts', "export { main } from '../cli/main.js';\n")).toHaveLength(1);
    expect(await problems('src/main/x.ts', "export { default } from 'better-sqlite3';\n")).toHaveLength(1);
    expect(await problems('src/renderer/x.ts', "export { Engine } from '../worker/engine.js';\n")).toHaveLength(1);
  });
});
