import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { servedFrom } from '../tools/serve-output.js';
import { weightsDir, weightsPath } from '../scripts/weights/table.js';
import { afterEach } from 'vitest';
import WebSocket from 'ws';
import type { ConfigInput } from '../src/shared/config.js';
import type { IngestProgress, IngestSummary, SearchParams } from '../src/shared/wire.js';
import { type Engine, type OpenEngineOptions, openEngine } from '../src/worker/index.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A temp folder removed after the test. World-writable so CLI runs as another user can use it. */
export async function tempDir(prefix = 'kb-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await import('node:fs/promises').then((f) => f.chmod(dir, 0o777));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files given as { 'relative/path': content } under dir. */
export async function writeTree(dir: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, content);
  }
}

export async function engineIn(
  dataDir?: string,
  config: ConfigInput = {},
  opts: Omit<OpenEngineOptions, 'dataDir' | 'config'> = {},
): Promise<Engine> {
  const dir = dataDir ?? join(await tempDir(), 'data');
  const engine = await openEngine({ dataDir: dir, config, ...opts });
  cleanups.push(async () => engine.close());
  return engine;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: () => Record<string, unknown>;
}

export function kb(args: string[], opts: { env?: Record<string, string>; cwd?: string; uid?: number; gid?: number } = {}): CliResult {
  const spawnOpts: SpawnSyncOptions = {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid ?? opts.uid } : {}),
  };
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin/kb.js'), ...args], spawnOpts);
  const stdout = String(r.stdout ?? '');
  return {
    code: r.status ?? -1,
    stdout,
    stderr: String(r.stderr ?? ''),
    json: () => JSON.parse(stdout) as Record<string, unknown>,
  };
}

/** Like kb(), without blocking this process: for tests that serve something the CLI must reach. */
export function kbAsync(args: string[], opts: { env?: Record<string, string> } = {}): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), ...args], {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) =>
      resolvePromise({ code: code ?? -1, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> }),
    );
  });
}

let saidSkipped = false;

/**
 * ../shared/corpora, or KB_CORPORA; null (and the caller skips, said once) when absent. Under
 * KB_REQUIRE_CORPORA=1 (CI, where the corpora sit beside the clone) a missing folder is an error, so
 * the tests that need it fail instead of skipping green.
 */
export function corporaDir(): string | null {
  const dir = process.env.KB_CORPORA ?? resolve(repoRoot, '../shared/corpora');
  if (existsSync(dir)) return dir;
  if (process.env.KB_REQUIRE_CORPORA === '1')
    throw new Error(`KB_REQUIRE_CORPORA=1, but the corpora are not at ${dir} (set KB_CORPORA to where they are)`);
  if (!saidSkipped)
    console.warn(`SKIPPED: the tests that read real PDFs, scans, audio and the tokenizer — ${dir} is absent (set KB_CORPORA)`);
  saidSkipped = true;
  return null;
}

let saidNoWeights = false;

/**
 * Where `npm run weights` left a real model (kb's cache outside the repo), or null (and the caller
 * skips, said once) when it has not run here. Under KB_REQUIRE_WEIGHTS=1 (CI, which runs it first)
 * their absence is an error, so the tests that need them fail instead of skipping green.
 */
export function realWeights(name: string): string | null {
  const path = weightsPath(name);
  if (path) return path;
  if (process.env.KB_REQUIRE_WEIGHTS === '1')
    throw new Error(`KB_REQUIRE_WEIGHTS=1, but ${name}'s weights are not in ${weightsDir()} (npm run weights)`);
  if (!saidNoWeights)
    console.warn(`SKIPPED: the tests that load real model weights — none in ${weightsDir()} (npm run weights fetches them)`);
  saidNoWeights = true;
  return null;
}

/**
 * A running `kb serve`: its URL (token included), and a stop that waits for it to exit. Stopped
 * after the test, unless `forFile` (a server a whole file's tests share: its afterAll stops it).
 */
export async function kbServe(
  dataDir: string,
  askedPort = 0,
  env: Record<string, string> = {},
  forFile = false,
): Promise<{ url: string; port: number; token: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin/kb.js'), 'serve', '--json', '--data-dir', dataDir, '--port', String(askedPort)],
    {
      cwd: repoRoot,
      env: { ...process.env, NO_COLOR: '1', KB_CONFIG: join(dataDir, '..', 'no-global-config.yaml'), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((res, rej) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n}')) res(out);
    });
    child.on('exit', (code) => rej(new Error(`kb serve exited with ${code}: ${out}`)));
  });
  const { url, port, token } = servedFrom(first);
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  if (!forFile) cleanups.push(stop);
  return { url, port, token, stop };
}

/**
 * Runs an ingest and, the first time its progress satisfies `when`, a search. Says what the ingest
 * did, how many hits the search found, and whether the search answered before the ingest ended.
 */
export async function searchDuringIngest(
  engine: Engine,
  paths: string[],
  when: (p: IngestProgress) => boolean,
  search: SearchParams,
): Promise<{ summary: IngestSummary; found: number; answeredFirst: boolean; progress: IngestProgress[] }> {
  const order: string[] = [];
  const progress: IngestProgress[] = [];
  let asked: Promise<number> | undefined;
  const summary = await engine
    .ingest(paths, {
      onProgress: (p) => {
        progress.push(p);
        if (asked || !when(p)) return;
        asked = engine.search(search).then((r) => {
          order.push('search');
          return r.total_matches;
        });
      },
    })
    .then((s) => {
      order.push('ingest');
      return s;
    });
  if (!asked) throw new Error('the ingest never reached the point the search waits for');
  const found = await asked;
  return { summary, found, answeredFirst: order[0] === 'search', progress };
}

/** Resolves when a running kb serve tells its windows `event` (over the WebSocket the app keeps open). */
export async function heard(port: number, token: string, event: string): Promise<{ close: () => void; event: Promise<unknown> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`, { origin: `http://127.0.0.1:${port}` });
  await new Promise((r, j) => ws.once('open', r).once('error', j));
  const got = new Promise((resolve) =>
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m)) as { type: string; event?: string; data?: unknown };
      if (msg.type === 'event' && msg.event === event) resolve(msg.data);
    }),
  );
  return { close: () => ws.close(), event: got };
}
