// A Python venv of kb's own tooling (the weights' converters, the benches' Tantivy): made once in a
// folder, with a requirements file installed, and made again only when that file changes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The venv's python, `requirements` installed into `venv` (pip's output on stderr: stdout may be an answer). */
export function venvPython(venv: string, requirements: string, installing?: string): string {
  const py = join(venv, 'bin', 'python');
  const stamp = join(venv, '.kb-requirements');
  const wanted = readFileSync(requirements, 'utf8');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted) return py;
  const run = (cmd: string, args: string[]): void => void execFileSync(cmd, args, { stdio: ['ignore', 2, 2] });
  if (!existsSync(py)) run('python3', ['-m', 'venv', venv]);
  if (installing) process.stderr.write(`${installing}\n`);
  run(py, ['-m', 'pip', 'install', '--quiet', '-r', requirements]);
  writeFileSync(stamp, wanted);
  return py;
}
