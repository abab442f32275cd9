import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function corporaDir(): string {
  const dir = process.env.KB_CORPORA ?? resolve(repoRoot, '../shared/corpora');
  if (!existsSync(dir)) throw new Error(`corpora not found at ${dir} (set KB_CORPORA)`);
  return dir;
}

/** A work folder under .bench/ (gitignored), emptied first. */
export async function freshDir(name: string): Promise<string> {
  const dir = join(repoRoot, '.bench', name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** `--store postgres`: the benches that can run on the PostgreSQL store do (ranking, latency). */
export function storeArg(): 'sqlite' | 'postgres' {
  const at = process.argv.indexOf('--store');
  const v = at >= 0 ? process.argv[at + 1] : process.argv.find((a) => a.startsWith('--store='))?.slice('--store='.length);
  if (v === undefined || v === 'sqlite') return 'sqlite';
  if (v === 'postgres' || v === 'postgresql') return 'postgres';
  throw new Error(`--store takes sqlite or postgres, not ${v}`);
}

export function benchDir(name: string): string {
  return join(repoRoot, '.bench', name);
}

export interface Check {
  what: string;
  value: number;
  target: number;
  better: 'higher' | 'lower';
  unit?: string;
}

export interface BenchResult {
  name: string;
  lines: string[];
  checks: Check[];
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}
