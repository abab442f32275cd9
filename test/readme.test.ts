// Every `kb` command in the README's code blocks, run as written (in bash, with `kb` on PATH and a
// small home folder of notes and a PDF), in the order the README gives them. A command either works
// (exit 0, no error) or — where it needs what no machine here can have (a model hub, real whisper
// weights) — fails the documented way, saying what to do. No line may print a stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from './support/make-test-pdf.js';
import { startOllamaStub, type OllamaStub } from './support/ollama-stub.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';
import { makeTestModel } from './support/make-test-model.js';
import { corporaDir, kbServe, repoRoot, tempDir, writeTree } from './helpers.js';

/** The commands of the README's ```sh blocks that run kb, comments dropped. */
export function readmeKbCommands(markdown: string): string[] {
  const out: string[] = [];
  for (const block of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const cmd = raw.replace(/\s+#\s.*$/, '').trim();
      if (/^kb\s/.test(cmd)) out.push(cmd);
      else if (/\s--\skb\s/.test(cmd)) out.push(cmd.slice(cmd.indexOf(' -- ') + 4)); // claude mcp add kb -- kb mcp
    }
  }
  return out;
}

/** Commands that cannot succeed on a machine without a model hub or real weights, and how they must fail. */
const DOCUMENTED_FAILURES: Record<string, { stderr: RegExp; why: string }> = {
  'kb models pull all-MiniLM-L6-v2': {
    stderr: /kb models import FOLDER --as all-MiniLM-L6-v2/,
    why: 'no hub is reachable here: it must say how to get the files by hand',
  },
  'kb models pull whisper-base.en': {
    stderr: /kb models import ggml-base\.en\.bin/,
    why: 'no hub is reachable here: it must say how to get the file by hand',
  },
  'kb models use whisper-base.en': {
    stderr: /whisper-base\.en is not installed — run: kb models pull whisper-base\.en/,
    why: 'no speech model could be had here: it must say how to get one',
  },
  'kb models import ggml-small.bin': {
    stderr: /not a whisper\.cpp model/,
    why: 'no real whisper weights exist here: a file that is not one is refused clearly',
  },
};

const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const hasCorpora = corporaDir() !== null;
if (!hasCorpora) console.warn('SKIPPED: the README commands test needs ../shared/corpora (the real tokenizer for the model it imports)');

let home: string;
let env: NodeJS.ProcessEnv;
let ollama: OllamaStub;
/** The README's team section runs against "$KB_DB": a throwaway database here, when a server is installed. */
let cluster: PgCluster | null = null;
const onPostgres = (cmd: string): boolean => ['$KB_DB', '$KB_SERVE_DB', '$KB_SERVER'].some((v) => cmd.includes(v));

beforeAll(async () => {
  if (!hasCorpora) return;
  home = await tempDir('kb-readme-');
  await writeTree(home, {
    'notes/setup.md':
      '# Setup\n\n## Linux\n\nInstall git with apt-get install git.\nThen make a git branch for your work:\n\n    git branch feature\n',
    'notes/git.md': '# Git\n\nA git branch is a movable pointer to a commit. Merge it back when done.\n',
    'golden.jsonl': '{"query": "install git", "expected_paths": ["notes/setup.md"], "expected_strings": ["apt-get install git"]}\n',
    // Not a whisper model: the README imports "a file you have", and none can be had here.
    'ggml-small.bin': 'not a model',
  });
  mkdirSync(join(home, 'papers'));
  writeFileSync(
    join(home, 'papers/raft.pdf'),
    await makePdf({
      pages: [
        { lines: ['Raft: understandable consensus.'] },
        { lines: ['Leader election: a candidate asks for votes.', 'Raft reaches consensus by a majority.'] },
      ],
    }),
  );
  // What the README imports "from ~/Downloads": a model of the real architecture and tokenizer, random weights.
  makeTestModel({ arch: 'minilm-l6', out: join(home, 'Downloads/all-MiniLM-L6-v2') });
  const bin = join(home, '.bin');
  mkdirSync(bin);
  symlinkSync(join(repoRoot, 'bin/kb.js'), join(bin, 'kb'));
  ollama = await startOllamaStub({ models: ['llama3.2'], chat: { tokens: ['Install git with apt-get [1].'] } });
  env = {
    ...process.env,
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    NO_COLOR: '1',
    KB_DATA_DIR: join(home, 'kb-data'),
    KB_CONFIG: join(home, 'no-global-config.yaml'),
    KB_OLLAMA_HOST: ollama.url,
    KB_HF_ENDPOINT: 'http://127.0.0.1:1', // nothing listens there: "without internet"
  };
  if (postgresAvailable()) {
    cluster = await startCluster();
    env.KB_DB = await cluster.database();
    // The team server's role (README: CREATE ROLE kb_server …), given its rights by the README's grant-server.
    env.KB_SERVE_DB = cluster.asServer(env.KB_DB);
  }
}, 120_000);
/** The team server the README's "Connecting" lines use, started when the first of them runs. */
let teamServer: Awaited<ReturnType<typeof kbServe>> | null = null;
afterAll(async () => {
  await teamServer?.stop();
  await ollama?.close();
  cluster?.stop();
});

/** A command run to its end without blocking this process (whose stubs it may talk to). */
function runAsync(cmd: string, e: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    const child = spawn('bash', ['-c', cmd], { cwd: home, env: e, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

/** A command that runs until stopped: it must start, print `ready`, and stop cleanly on Ctrl-C. */
function runUntil(
  cmd: string,
  ready: RegExp,
  check: (out: string) => Promise<void>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', ['-c', `exec ${cmd}`], { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${cmd} did not start: ${out}${err}`));
    }, 60_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (started || !ready.test(out)) return;
      started = true;
      check(out).then(
        () => child.kill('SIGINT'),
        (e: unknown) => {
          child.kill('SIGKILL');
          reject(e as Error);
        },
      );
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, out, err });
    });
  });
}

describe.skipIf(!hasCorpora)('the README', () => {
  it('runs every kb command it shows, in order, to the outcome it documents', async () => {
    const commands = readmeKbCommands(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    expect(commands.length).toBeGreaterThan(20);
    expect(commands).toContain('kb search "\'NEAR(git branch, 5)\'"');
    const ran: string[] = [];
    expect(commands.filter(onPostgres).length).toBeGreaterThanOrEqual(3);
    let teamEnv = env;
    for (const cmd of commands) {
      if (onPostgres(cmd) && !cluster) continue; // no PostgreSQL server here (postgresAvailable said so)
      if (cmd.includes('$KB_SERVER') && !teamServer) {
        // "Connecting": the team's server the README set up, and alice's token from its admin.
        teamServer = await kbServe(join(home, 'server-data'), 0, { KB_STORE: env.KB_SERVE_DB! }, true);
        const token = spawnSync('bash', ['-c', 'kb --store "$KB_DB" users token alice --json'], { cwd: home, env, encoding: 'utf8' });
        teamEnv = {
          ...env,
          KB_SERVER: `http://127.0.0.1:${teamServer.port}`,
          KB_TOKEN: (JSON.parse(token.stdout) as { token: string }).token,
        };
      }
      if (/ serve .*--public-url https:\/\/kb\.example\.com/.test(cmd)) {
        const r = await runUntil(cmd, /access token in \S+/, async (out) => {
          expect(out).toMatch(/^https:\/\/kb\.example\.com\/\n/);
          const token = readFileSync(/access token in (\S+) /.exec(out)![1]!, 'utf8').trim();
          const port = Number(/--port (\d+)/.exec(cmd)![1]);
          // What the proxy passes on: the public Host, the request, the token.
          const { request } = await import('node:http');
          const status = await new Promise<number>((res, rej) =>
            request({ host: '127.0.0.1', port, path: `/?token=${token}`, headers: { host: 'kb.example.com' } }, (r) => res(r.statusCode!))
              .on('error', rej)
              .end(),
          );
          expect(status, cmd).toBe(200);
        });
        expect(r.code, `${cmd}: ${r.err}`).toBe(0);
        continue;
      }
      if (cmd === 'kb serve') {
        // Not a terminal here: it prints the address and the file the token is in, never the token.
        const r = await runUntil(cmd, /access token in \S+/, async (out) => {
          const address = /http:\/\/127\.0\.0\.1:\d+\//.exec(out)![0];
          const token = readFileSync(/access token in (\S+) /.exec(out)![1]!, 'utf8').trim();
          expect(out).not.toContain(token);
          const res = await fetch(`${address}?token=${token}`);
          expect(res.status, cmd).toBe(200);
          expect(await res.text(), cmd).toMatch(/<div id="root">/);
        });
        expect(r.code, `${cmd}: ${r.err}`).toBe(0);
        continue;
      }
      if (cmd === 'kb mcp') {
        const child = spawn('bash', ['-c', `exec ${cmd}`], { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] });
        const reply = new Promise<string>((res) => child.stdout.once('data', (d: Buffer) => res(d.toString())));
        child.stdin.write(
          `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'readme-test', version: '1' } } })}\n`,
        );
        expect(JSON.parse(await reply).result.serverInfo.name, cmd).toBe('kb');
        const exited = new Promise<number | null>((res) => child.on('exit', res));
        child.stdin.end();
        expect(await exited, cmd).toBe(0);
        continue;
      }
      // kb ask talks to the Ollama stub in this process: it must keep answering while the command runs.
      const r = cmd.startsWith('kb ask')
        ? await runAsync(cmd, env)
        : spawnSync('bash', ['-c', cmd], {
            cwd: home,
            env: cmd.includes('$KB_SERVER') ? teamEnv : env,
            encoding: 'utf8',
            timeout: 120_000,
          });
      ran.push(`${r.status} ${cmd}`);
      const said = `${cmd}\n${r.stdout}${r.stderr}`;
      expect(said, 'no stack traces').not.toMatch(STACK);
      expect(r.stderr, 'no internal errors').not.toMatch(/\(INTERNAL\)/);
      const failure = DOCUMENTED_FAILURES[cmd];
      if (failure) {
        expect(r.status, `${said}\n(${failure.why})`).toBe(1);
        expect(r.stderr, failure.why).toMatch(failure.stderr);
      } else {
        expect(r.status, said).toBe(0);
        expect(r.stderr, said).not.toMatch(/kb: error/);
        // An example search finds something, or it shows nothing.
        if (cmd.startsWith('kb search')) expect(r.stdout, said).not.toMatch(/No matches|"results": \[\]/);
      }
    }
    // And the examples find what they promise: the FTS5 one is FTS5 syntax (NEAR/5 is FTS4's, and fails).
    expect(readFileSync(join(repoRoot, 'README.md'), 'utf8')).not.toMatch(/NEAR\/\d/);
    const near = spawnSync('bash', ['-c', 'kb search "\'NEAR(git branch, 5)\'" --json'], { cwd: home, env, encoding: 'utf8' });
    expect(near.stdout).toMatch(/"path": "[^"]*notes\/git\.md"/);
    if (process.env.KB_README_VERBOSE) console.log(ran.join('\n'));
  }, 600_000);
});
