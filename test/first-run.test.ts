// A newcomer's first ten minutes: the README's first command (npm run app, kb on PATH, an install that
// needs no environment variables), and the first things they will try with kb.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronBinary } from '../tools/electron-tools.mjs';
import { startOllamaStub } from './support/ollama-stub.js';
import { kb, repoRoot, tempDir, writeTree } from './helpers.js';

const STACK = /^\s+at .+:\d+:\d+\)?$/m;
const readme = (): string => readFileSync(join(repoRoot, 'README.md'), 'utf8');
const firstCommand = (): string => /```sh\n(.*)\n/.exec(readme())![1]!.replace(/\s+#\s.*$/, '');

/** `npm run app`, as the README runs it. */
function npmRunApp(env: NodeJS.ProcessEnv): { code: number | null; out: string } {
  const r = spawnSync('npm', ['run', 'app', '--silent'], { cwd: repoRoot, env, encoding: 'utf8', timeout: 300_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** The environment of a person who set nothing for Electron. */
function plainEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const k of ['ELECTRON_SKIP_BINARY_DOWNLOAD', 'ELECTRON_OVERRIDE_DIST_PATH', 'ELECTRON_MIRROR', 'DISPLAY', 'WAYLAND_DISPLAY']) {
    if (!(k in extra)) delete env[k];
  }
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  return env;
}

describe('npm run app', () => {
  const installed = electronBinary(repoRoot) !== null;
  if (installed) console.warn('SKIPPED: "npm run app without an Electron download" — an Electron binary is installed here');

  it.skipIf(installed)(
    'where Electron cannot be downloaded: one paragraph with the mirror setting and kb serve, exit 69, no stack trace',
    async () => {
      const cache = await tempDir();
      const r = npmRunApp(plainEnv({ ELECTRON_MIRROR: 'http://127.0.0.1:1/', electron_config_cache: cache }));
      expect(r.code, r.out).toBe(69);
      expect(r.out).not.toMatch(STACK);
      const paragraph = r.out.split('\n').find((l) => l.startsWith("kb: the desktop app can't start here"));
      expect(paragraph, r.out).toBeDefined();
      expect(paragraph).toMatch(/downloading the Electron [\d.]+ binary from http:\/\/127\.0\.0\.1:1\/ failed/);
      expect(paragraph).toMatch(/ELECTRON_MIRROR/);
      expect(paragraph).toMatch(/`kb serve`/);
      // Nothing else of Electron's own advice ("npx install-electron --no") that contradicts it.
      expect(r.out).not.toMatch(/install-electron|fetch failed\n/);
    },
    120_000,
  );

  it('with no display to show a window: the same paragraph, before building anything', async () => {
    const dist = await tempDir();
    writeFileSync(join(dist, 'electron'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(dist, 'electron'), 0o755);
    const r = npmRunApp(plainEnv({ ELECTRON_OVERRIDE_DIST_PATH: dist }));
    expect(r.code, r.out).toBe(69);
    expect(r.out).toMatch(/kb: the desktop app can't start here: there is no display .* `kb serve` prints its address/);
    expect(r.out).not.toMatch(/electron-vite|building/i);
  }, 60_000);
});

describe('the install', () => {
  it('declares every dependency install script in allowScripts, and skips the CUDA download without an environment variable', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
    const withScripts = new Set<string>();
    const visit = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const name of readdirSync(dir)) {
        if (name.startsWith('.')) continue;
        if (name.startsWith('@')) {
          visit(join(dir, name));
          continue;
        }
        const manifest = join(dir, name, 'package.json');
        if (!existsSync(manifest)) continue;
        const p = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; scripts?: Record<string, string> };
        const s = p.scripts ?? {};
        // A binding.gyp without an install script gets npm's implicit `node-gyp rebuild`.
        if (s.preinstall || s.install || s.postinstall || (existsSync(join(dir, name, 'binding.gyp')) && !s.install))
          withScripts.add(p.name);
        visit(join(dir, name, 'node_modules'));
      }
    };
    visit(join(repoRoot, 'node_modules'));
    expect(withScripts.size).toBeGreaterThan(3);
    for (const name of withScripts) expect(Object.keys(pkg.allowScripts), `${name} runs an install script`).toContain(name);
    // The native addons kb loads must build; onnxruntime-node's script only fetches CUDA libraries.
    expect(pkg.allowScripts['better-sqlite3']).toBe(true);
    expect(pkg.allowScripts['smart-whisper']).toBe(true);
    expect(pkg.allowScripts['onnxruntime-node']).toBe(false);
    // npm 10 ignores allowScripts: kb asks for npm 11.16+ (which honours it), strictly, so npm 10 stops
    // before any download and says why. No key npm does not know is left in .npmrc (npm 11 warns of one
    // on every command).
    const npmrc = readFileSync(join(repoRoot, '.npmrc'), 'utf8');
    expect(npmrc).toMatch(/^engine-strict=true$/m);
    expect(npmrc).not.toMatch(/^onnxruntime/m);
    expect((JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { npm: string } }).engines.npm).toBe(
      '>=11.16.0',
    );
    const run = spawnSync('npm', ['--version'], { cwd: repoRoot, encoding: 'utf8' });
    expect(run.stderr).not.toMatch(/Unknown project config/);
    // CI sets none of the switches a newcomer would not know.
    const ci = readFileSync(join(repoRoot, '.ci/run'), 'utf8');
    expect(ci).not.toMatch(/^export (ONNXRUNTIME_NODE_INSTALL|ELECTRON_SKIP_BINARY_DOWNLOAD|npm_config_nodedir)=/m);
    expect(ci).toMatch(/\.ci\/fresh-clone/);
  });

  it("puts kb on PATH with the README's first command, and that kb works from a folder outside the repo", async () => {
    expect(firstCommand()).toMatch(/^npm install && npm link --ignore-scripts && npm run app$/);
    const prefix = await tempDir();
    const link = spawnSync('npm', ['link', '--ignore-scripts', '--no-audit', '--no-fund'], {
      cwd: repoRoot,
      env: { ...process.env, npm_config_prefix: prefix },
      encoding: 'utf8',
    });
    expect(link.status, link.stderr).toBe(0);
    const elsewhere = await tempDir();
    const r = spawnSync('kb', ['--help'], {
      cwd: elsewhere,
      env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/kb — a local-first knowledge base/);
    // The help says what ingest takes today, not the Markdown, notes and code of its first version.
    expect(r.stdout.replace(/\s+/g, ' ')).toMatch(/ingest .*Markdown, notes, code, PDFs, images and scans \(OCR\), audio and video/);
  });

  it('never tells anyone to run `npx kb` (outside this folder it fetches an unrelated package)', () => {
    for (const f of ['README.md', 'SKILL.md', 'docs/architecture.md', 'scripts/app.mjs', 'src/renderer/App.tsx']) {
      const text = readFileSync(join(repoRoot, f), 'utf8').replace(/Don't use `npx kb`[^.]*\.|never `npx kb`[^)]*\)/g, '');
      expect(text, f).not.toMatch(/npx kb\b/);
    }
  });
});

/** A data dir and a folder of the first files a person might drop in. */
async function firstFiles(): Promise<{ docs: string; data: string }> {
  const dir = await tempDir();
  const docs = join(dir, 'docs');
  const { createCanvas } = await import('@napi-rs/canvas');
  const blank = createCanvas(400, 200);
  const g = blank.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, 400, 200);
  const png = blank.toBuffer('image/png');
  // A WAV of silence: audio, which waits for a speech model here.
  const samples = 16000;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(16000, 24);
  wav.writeUInt32LE(32000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(samples * 2, 40);
  await writeTree(docs, {
    'notes.md': `# Notes\n\n${Array.from({ length: 16 }, (_, i) => `line ${i + 3} about the heron`).join('\n')}\n`,
    'blank.png': png,
    'truncated.png': png.subarray(0, Math.floor(png.length / 2)),
    'talk.wav': wav,
  });
  return { docs, data: join(dir, 'data') };
}

describe('first contact with kb', () => {
  it('counts an unreadable image once, as failed, with one line; no native library writes to the terminal', async () => {
    const { docs, data } = await firstFiles();
    const r = kb(['ingest', docs, '--data-dir', data]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stderr).not.toMatch(/libpng|pixRead|Error in /);
    const failedLines = r.stdout.split('\n').filter((l) => l.startsWith('failed '));
    expect(failedLines).toHaveLength(2);
    expect(failedLines.find((l) => l.includes('truncated.png'))).toMatch(/could not be decoded.*\(PARSE_FAILED\)/);
    expect(failedLines.find((l) => l.includes('blank.png'))).toMatch(/no text found.*\(EMPTY\)/);
    // 4 files: notes and the waiting recording added, the two images failed.
    expect(r.stdout).toMatch(/Added 2, updated 0, unchanged 0, failed 2/);
    const j = kb(['ingest', docs, '--data-dir', data, '--json']).json() as { added: number; failed: number; errors: unknown[] };
    expect(j.failed).toBe(j.errors.length);
  }, 120_000);

  it('speaks of waiting audio only when the batch had some', async () => {
    const { docs, data } = await firstFiles();
    expect(kb(['ingest', join(docs, 'talk.wav'), '--data-dir', data]).stdout).toMatch(
      /^1 audio file waits for a speech model: kb models pull whisper-base\.en$/m,
    );
    const dir = await tempDir();
    await writeTree(dir, { 'later.md': '# Later\n\nno sound here\n' });
    const later = kb(['ingest', dir, '--data-dir', data]);
    expect(later.stdout).toMatch(/Added 1, updated 0, unchanged 0, failed 0/);
    expect(later.stdout).not.toMatch(/audio/);
  });

  it('says one word for each document everywhere: indexed, waiting or failed, with the reason', async () => {
    const { docs, data } = await firstFiles();
    kb(['add', docs, '--data-dir', data]);
    const ls = kb(['ls', '--data-dir', data]);
    const word = (name: string): string | undefined =>
      ls.stdout
        .split('\n')
        .find((l) => l.endsWith(name))
        ?.split(/\s+/)[1];
    expect(word('notes.md')).toBe('indexed');
    expect(word('talk.wav')).toBe('waiting');
    // A recording says how long it is.
    expect(ls.stdout.split('\n').find((l) => l.endsWith('talk.wav'))).toMatch(/ \d+:\d\d {2}\S*talk\.wav$/);
    expect(word('truncated.png')).toBe('failed');
    expect(word('blank.png')).toBe('failed');
    expect(ls.stdout).not.toMatch(/stale/);
    expect(ls.stdout).toMatch(/4 documents \(1 waiting, 2 failed\)/);
    const json = kb(['ls', '--json', '--data-dir', data]).json() as {
      documents: { path: string; status: string; reason: string | null }[];
    };
    const byName = (n: string) => json.documents.find((d) => d.path.endsWith(n))!;
    expect(byName('talk.wav')).toMatchObject({ status: 'waiting', reason: expect.stringMatching(/speech model/) });
    expect(byName('blank.png')).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^EMPTY/) });
    for (const name of ['talk.wav', 'blank.png', 'notes.md']) {
      const doc = (
        kb(['inspect', 'doc', join(docs, name), '--data-dir', data]).json() as { document: { status: string; reason: string | null } }
      ).document;
      expect(doc, name).toMatchObject({ status: byName(name).status, reason: byName(name).reason });
    }
    const coll = kb(['collections', '--json', '--data-dir', data]).json() as {
      collections: { documents: number; failed: number; waiting: number }[];
    };
    // Counted from the index and the few rows that may be unsettled: the same as kb ls, row by row.
    const count = (status: string): number => json.documents.filter((d) => d.status === status).length;
    expect(coll.collections[0]).toMatchObject({ documents: json.documents.length, failed: count('failed'), waiting: count('waiting') });
    expect(coll.collections[0]).toMatchObject({ documents: 4, failed: 2, waiting: 1 });
    expect(kb(['doctor', '--data-dir', data]).stdout).toMatch(/documents: 2 failed, 1 waiting of 4 documents/);
  }, 120_000);

  it("tags documents indexed before their folder became a collection with the collection's tags", async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'notes/a.md': '# A\n\nthe kingfisher dives\n' });
    const data = join(dir, 'data');
    expect(kb(['ingest', join(dir, 'notes'), '--data-dir', data]).code).toBe(0);
    expect(kb(['add', join(dir, 'notes'), '--tags', 'birds', '--data-dir', data]).code).toBe(0);
    const hits = kb(['search', 'kingfisher', '--tags', 'birds', '--json', '--data-dir', data]).json() as {
      results: { source: { tags: string[] } }[];
    };
    expect(hits.results).toHaveLength(1);
    expect(hits.results[0]!.source.tags).toEqual(['birds']);
  });

  it('answers small mistakes clearly: a reversed range, a line past the end, a path that is not there', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'f.md': Array.from({ length: 18 }, (_, i) => `line ${i + 1}`).join('\n') + '\n' });
    const data = join(dir, 'data');
    kb(['ingest', dir, '--data-dir', data]);
    const reversed = kb(['get', `${join(dir, 'f.md')}#L5-L3`, '--data-dir', data]);
    expect(reversed.code).toBe(2);
    expect(reversed.stderr).toMatch(/#L5-L3 ends before it starts: did you mean #L3-L5\?/);
    expect(kb(['get', `${join(dir, 'f.md')}#L30-L40`, '--data-dir', data]).stderr).toMatch(/has 18 lines, not 30/);
    expect(kb(['get', `${join(dir, 'f.md')}#L18`, '--data-dir', data]).stdout).toMatch(/^line 18$/m);
    const missing = kb(['ingest', join(dir, 'nope'), '--data-dir', data]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such file or folder: .*nope \(NOT_FOUND\)/);
    expect(kb(['search', 'line', '--top', '1', '--data-dir', data]).stdout).toMatch(/\b1 match in/);
    expect(kb(['ls', '--data-dir', data]).stdout).toMatch(/ 1 chunk {2}.*\n1 document$/m);
  });

  it('stops quietly when its reader goes away (kb inspect … | head)', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'big.md': Array.from({ length: 4000 }, (_, i) => `## Part ${i}\n\nsome words about part ${i}\n`).join('\n') });
    const data = join(dir, 'data');
    kb(['ingest', dir, '--data-dir', data]);
    const r = spawnSync(
      'bash',
      [
        '-c',
        `node ${join(repoRoot, 'bin/kb.js')} inspect doc ${join(dir, 'big.md')} --data-dir ${data} | head -c 100 >/dev/null; echo "kb exited \${PIPESTATUS[0]}" >&2`,
      ],
      { encoding: 'utf8' },
    );
    expect(r.stderr).toBe('kb exited 0\n');
  });

  it('does not name a model for an answer no model wrote', async () => {
    const dir = await tempDir();
    await writeTree(dir, { 'git.md': '# Git\n\nInstall git with apt-get install git.\n' });
    const data = join(dir, 'data');
    kb(['ingest', dir, '--data-dir', data]);
    const down = kb(['ask', 'how do I install git', '--data-dir', data], { env: { KB_OLLAMA_HOST: 'http://127.0.0.1:1' } });
    expect(down.code).toBe(1);
    expect(down.stdout).not.toMatch(/llama3\.2 ·/);
    expect(down.stdout).toMatch(/no answer: the language model was not reached · \d+ ms/);
    const stub = await startOllamaStub({ models: ['llama3.2'], chat: { tokens: ['Use apt-get [1].'] } });
    try {
      const { kbAsync } = await import('./helpers.js');
      const up = await kbAsync(['ask', 'how do I install git', '--data-dir', data], { env: { KB_OLLAMA_HOST: stub.url } });
      expect(up.stdout).toMatch(/answered by llama3\.2 · \d+ ms/);
    } finally {
      await stub.close();
    }
  });
});

describe('getting models without internet', () => {
  it('a failed pull says how to download by hand and import, names the mirror setting, and lists every model kb knows', async () => {
    const data = join(await tempDir(), 'data');
    const env = { KB_HF_ENDPOINT: 'http://127.0.0.1:1' };
    const emb = kb(['models', 'pull', 'all-MiniLM-L6-v2', '--data-dir', data], { env });
    expect(emb.code).toBe(1);
    expect(emb.stderr).toMatch(/KB_HF_ENDPOINT/);
    expect(emb.stderr).toMatch(/https:\/\/huggingface\.co\/Xenova\/all-MiniLM-L6-v2 .*kb models import FOLDER --as all-MiniLM-L6-v2/);
    const speech = kb(['models', 'pull', 'whisper-base.en', '--data-dir', data], { env });
    expect(speech.stderr).toMatch(/ggml-base\.en\.bin, copy it here and run: kb models import ggml-base\.en\.bin/);
    const unknown = kb(['models', 'pull', 'whisper-huge', '--data-dir', data]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/all-MiniLM-L6-v2/);
    expect(unknown.stderr).toMatch(/whisper-base\.en/);
  });

  it('an import of a folder without weights names that folder and what it lacks, not a temporary copy', async () => {
    const dir = await tempDir();
    const folder = join(dir, 'my-model');
    mkdirSync(folder);
    writeFileSync(join(folder, 'tokenizer.json'), '{}');
    const r = kb(['models', 'import', folder, '--data-dir', join(dir, 'data')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${folder} lacks the ONNX weights (onnx/model_quantized.onnx`);
    expect(r.stderr).not.toMatch(/\.partial/);
  });
});

/** A new data dir whose config.yaml says this. */
async function dataDirWith(configYaml: string): Promise<string> {
  const data = join(await tempDir(), 'data');
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'config.yaml'), configYaml);
  return data;
}

describe('kb doctor', () => {
  it('reports a config it cannot read as a failed check and still runs the others', async () => {
    const data = await dataDirWith('search: [1\n');
    const r = kb(['doctor', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ config: .*config\.yaml is not valid YAML/);
    expect(r.stdout).toMatch(/✓ database integrity/);
    // Other commands refuse it, clearly.
    expect(kb(['ls', '--data-dir', data]).stderr).toMatch(/not valid YAML.*\(CONFIG_INVALID\)/);
  });

  it('catches misspelt settings, which other commands warn about', async () => {
    const data = await dataDirWith('serch:\n  feedback: false\nocr:\n  enabld: false\n');
    const r = kb(['doctor', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✗ config: .*unknown setting serch \(did you mean search\?\).*unknown setting ocr\.enabld \(did you mean ocr\.enabled\?\)/,
    );
    const ls = kb(['ls', '--data-dir', data]);
    expect(ls.code).toBe(0);
    expect(ls.stderr).toMatch(/kb: warning: .*unknown setting serch \(did you mean search\?\)/);
  });

  it('checks ffmpeg and the speech model', async () => {
    const data = await dataDirWith('audio:\n  ffmpeg_path: /nonexistent/ffmpeg\n');
    const r = kb(['doctor', '--data-dir', data]);
    expect(r.stdout).toMatch(/! ffmpeg: ffmpeg was not found at \/nonexistent\/ffmpeg/);
    expect(r.stdout).toMatch(/! speech model: whisper-base\.en is not installed.*kb models pull whisper-base\.en/);
    mkdirSync(join(data, 'models/whisper'), { recursive: true });
    writeFileSync(join(data, 'models/whisper/whisper-base.en.bin'), 'garbage');
    expect(kb(['doctor', '--data-dir', data]).stdout).toMatch(/✗ speech model: .*not a whisper\.cpp model/);
  });
});
