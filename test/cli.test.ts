import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IngestSummarySchema, SearchResultSchema } from '../src/shared/wire.js';
import { kb, repoRoot, tempDir, writeTree } from './helpers.js';

async function setup(): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = await tempDir();
  await writeTree(dir, {
    'notes/setup.md': '# Setup\n\n## Linux\n\nInstall git with apt.\nConfigure the editor.\n',
    'notes/other.md': '# Other\n\nNothing about version control here, only gardening.\n',
  });
  return { dir, env: { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'global.yaml') } };
}

describe('kb CLI', () => {
  it('ingests with a JSON summary and searches with the wire format', async () => {
    const { dir, env } = await setup();
    const ing = kb(['ingest', join(dir, 'notes'), '--tags', 'a,b', '--json'], { env });
    expect(ing.code).toBe(0);
    const summary = IngestSummarySchema.parse(ing.json());
    expect(summary).toMatchObject({ schema_version: 1, added: 2, updated: 0, unchanged: 0, failed: 0, errors: [] });

    const s = kb(['search', 'install', 'git', '--json'], { env });
    expect(s.code).toBe(0);
    const r = SearchResultSchema.parse(s.json());
    expect(r).toMatchObject({ schema_version: 1, query: 'install git', mode: 'hybrid', returned: 1 });
    expect(r.results[0]!.citation).toMatchObject({ kind: 'lines', start: 1, end: 6, section: 'Setup' });
    expect(r.results[0]!.source.tags).toEqual(['a', 'b']);
  });

  it('prints readable results: title, type, a citation label and a snippet', async () => {
    const { dir, env } = await setup();
    kb(['ingest', join(dir, 'notes')], { env });
    const s = kb(['search', 'editor'], { env, cwd: dir });
    expect(s.code).toBe(0);
    expect(s.stdout).toContain('1. Setup (markdown)');
    expect(s.stdout).toContain('notes/setup.md · L1–6 § Setup');
    expect(s.stdout).toContain('Configure the editor.');
    const human = kb(['ingest', join(dir, 'notes')], { env });
    expect(human.stdout).toMatch(/Added 0, updated 0, unchanged 2, failed 0/);
  });

  it('reports errors as JSON with a non-zero exit code', async () => {
    const { env } = await setup();
    const bad = kb(['search', "'git AND ('", '--json'], { env });
    expect(bad.code).toBe(1);
    expect(bad.json()).toMatchObject({ schema_version: 1, error: { code: 'QUERY_INVALID' } });
    const usage = kb(['search', 'x', '--top', 'lots', '--json'], { env });
    expect(usage.code).toBe(2);
    expect(usage.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    const unknown = kb(['inspect', 'doc', 'nope', '--json'], { env });
    expect(unknown.code).toBe(1);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const badMode = kb(['search', 'x', '--mode', 'psychic', '--json'], { env });
    expect(badMode.code).toBe(2);
    expect(badMode.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    const human = kb(['inspect', 'chunk', 'nope'], { env });
    expect(human.stderr).toMatch(/kb: error: no chunk with id nope/);
  });

  it('exits 3 when some files failed', async () => {
    const { dir, env } = await setup();
    await writeFile(join(dir, 'notes/bin.md'), new Uint8Array([0, 0, 0, 1]));
    const r = kb(['ingest', join(dir, 'notes'), '--json'], { env });
    expect(r.code).toBe(3);
    expect(r.json()).toMatchObject({ added: 2, failed: 1, errors: [{ code: 'NOT_TEXT' }] });
  });

  it('exits 130 when Ctrl-C interrupts an ingest, saying the rest is not read (issue 49)', async () => {
    const dir = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`many/n${i}.md`] = `# Note ${i}\n\nThe otter ${i} slid down the bank.\n`;
    await writeTree(dir, files);
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), 'ingest', join(dir, 'many')], {
      env: { ...process.env, KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml'), NO_COLOR: '1' },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += String(d)));
    setTimeout(() => child.kill('SIGINT'), 1500);
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(out).toMatch(/Interrupted: the files above were indexed; run the same command to finish/);
    expect(code).toBe(130);
  });

  it('ls, inspect, remove, gc and doctor', async () => {
    const { dir, env } = await setup();
    kb(['ingest', join(dir, 'notes')], { env });
    const ls = kb(['ls', '--json'], { env }).json() as { documents: { doc_id: string; path: string; chunks: number; status: string }[] };
    expect(ls.documents).toHaveLength(2);
    const setupDoc = ls.documents.find((d) => d.path.endsWith('setup.md'))!;
    expect(setupDoc).toMatchObject({ status: 'indexed', chunks: 1, title: 'Setup', type: 'markdown' });

    const doc = kb(['inspect', 'doc', setupDoc.doc_id], { env }).json() as { chunks: { id: string; anchor: unknown }[] };
    expect(doc.chunks[0]!.anchor).toEqual({ kind: 'lines', start: 1, end: 6 });
    const chunk = kb(['inspect', 'chunk', doc.chunks[0]!.id], { env }).json() as { chunk: { text: string } };
    expect(chunk.chunk.text).toContain('Install git');

    const rm = kb(['remove', join(dir, 'notes/setup.md'), '--json'], { env });
    expect(rm.json()).toMatchObject({ removed: [{ doc_id: setupDoc.doc_id }] });
    expect((kb(['ls', '--json'], { env }).json() as { documents: unknown[] }).documents).toHaveLength(1);
    // Remove gave its stored copy back already: gc finds nothing left over.
    expect(kb(['gc', '--json'], { env }).json()).toMatchObject({ removed_blobs: 0, removed_uploads: 0 });

    const doctor = kb(['doctor', '--json'], { env });
    expect(doctor.code).toBe(0);
    const report = doctor.json() as { ok: boolean; checks: { name: string; status: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => c.name)).toEqual(
      expect.arrayContaining(['config', 'data dir', 'database integrity', 'full-text index', 'originals']),
    );
  });

  it("never writes a document's control sequences to the terminal: no window title, clipboard or screen commands (issue 50)", async () => {
    const { dir, env } = await setup();
    const evil = `# Esc\x1b]0;owned\x07 title\n\nThe gannet \x1b]52;c;ZWNobyBvd25lZA==\x07 dives \x1b[2J\x9b31m here.\n`;
    await writeFile(join(dir, 'evil.md'), evil);
    expect(kb(['ingest', join(dir, 'evil.md')], { env }).code).toBe(0);
    const found = kb(['search', 'gannet'], { env });
    const got = kb(['get', `${join(dir, 'evil.md')}#L1-L3`], { env });
    const listed = kb(['ls'], { env });
    for (const out of [found.stdout, got.stdout, listed.stdout]) {
      expect(out).not.toMatch(/[\x1b\x07\x9b]/);
    }
    expect(got.stdout).toMatch(/The gannet \uFFFD\]52;c;ZWNobyBvd25lZA==\uFFFD dives/);
    // --json keeps the text as it is: JSON escapes what a terminal would obey.
    expect(JSON.stringify(kb(['get', `${join(dir, 'evil.md')}#L3`, '--json'], { env }).json())).toContain('\\u001b]52');
  });

  it('init writes a commented config that kb then reads; a bad config is a clear error', async () => {
    const { dir, env } = await setup();
    const init = kb(['init', '--json'], { env });
    expect(init.code).toBe(0);
    const file = join(dir, 'data', 'config.yaml');
    expect(readFileSync(file, 'utf8')).toMatch(/^# kb configuration/);
    expect(kb(['init'], { env }).code).toBe(2);
    expect(kb(['doctor', '--json'], { env }).code).toBe(0);
    await writeFile(file, 'search:\n  top: many\n');
    const bad = kb(['ls', '--json'], { env });
    expect(bad.code).toBe(1);
    expect(bad.json()).toMatchObject({ error: { code: 'CONFIG_INVALID' } });
    expect((bad.json() as { error: { message: string } }).error.message).toMatch(/search\.top/);
    // kb doctor says the same: kb refuses it (it does not go on with the defaults).
    const refused = kb(['doctor', '--json'], { env }).json() as { checks: { name: string; status: string; detail: string }[] };
    expect(refused.checks.find((c) => c.name === 'config')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/search\.top.*kb refuses to run until it is fixed/),
    });
    // A bad value of a setting that only changes how kb looks is ignored with a warning, as doctor says: kb goes on.
    await writeFile(file, 'ui:\n  editor_uri: "javascript:alert(1)"\n');
    const cosmetic = kb(['ls', '--json'], { env });
    expect(cosmetic.code).toBe(0);
    expect(cosmetic.stderr).toMatch(/warning: .*ui\.editor_uri: .*ignored, its default is used/);
    const said = kb(['doctor', '--json'], { env }).json() as { checks: { name: string; status: string; detail: string }[] };
    expect(said.checks.find((c) => c.name === 'config')?.detail).toMatch(/ui\.editor_uri: .*ignored, its default is used/);
    await writeFile(file, 'search:\n  top: 1\n');
    kb(['ingest', join(dir, 'notes')], { env });
    // Meaning alone, with no model to search by: an error that says what to get, not "No matches."
    const vector = kb(['search', 'setup', '--mode', 'vector'], { env });
    expect(vector.code).toBe(1);
    expect(vector.stderr).toMatch(/search by meaning is not available: no embedding model installed.*\(MODEL_MISSING\)/);
    expect((kb(['search', "'setup OR other'", '--json'], { env }).json() as { returned: number }).returned).toBe(1);
  });

  it('takes the data dir from --data-dir over KB_DATA_DIR over the global config', async () => {
    const { dir, env } = await setup();
    await writeFile(env.KB_CONFIG!, `data_dir: ${join(dir, 'from-config')}\n`);
    const noEnv = { KB_CONFIG: env.KB_CONFIG!, KB_DATA_DIR: '' };
    kb(['ingest', join(dir, 'notes/setup.md')], { env: { ...noEnv } });
    expect(existsSync(join(dir, 'from-config', 'kb.sqlite'))).toBe(true);
    kb(['ingest', join(dir, 'notes/setup.md')], { env: { ...noEnv, KB_DATA_DIR: join(dir, 'from-env') } });
    expect(existsSync(join(dir, 'from-env', 'kb.sqlite'))).toBe(true);
    kb(['ingest', join(dir, 'notes/setup.md'), '--data-dir', join(dir, 'from-flag')], {
      env: { ...noEnv, KB_DATA_DIR: join(dir, 'from-env') },
    });
    expect(existsSync(join(dir, 'from-flag', 'kb.sqlite'))).toBe(true);
  });

  it('eval run reports recall, MRR and nDCG; eval compare shows the difference', async () => {
    const { dir, env } = await setup();
    kb(['ingest', join(dir, 'notes')], { env });
    const golden = join(dir, 'golden.jsonl');
    await writeFile(
      golden,
      [
        JSON.stringify({ query: 'install git', expected_paths: ['notes/setup.md'] }),
        JSON.stringify({ query: 'gardening', expected_strings: ['only gardening'] }),
        JSON.stringify({ query: 'quantum chromodynamics', expected_paths: ['notes/setup.md'] }),
      ].join('\n'),
    );
    const a = kb(['eval', 'run', golden, '--out', join(dir, 'a.json'), '--json'], { env });
    expect(a.code).toBe(0);
    const run = a.json() as {
      metrics: { recall_at_k: number; mrr: number; ndcg_at_10: number };
      per_query: { first_relevant_rank: number | null }[];
    };
    expect(run.metrics.mrr).toBeCloseTo(2 / 3, 5);
    expect(run.metrics.recall_at_k).toBeCloseTo(2 / 3, 5);
    expect(run.per_query.map((q) => q.first_relevant_rank)).toEqual([1, 1, null]);
    const b = kb(['eval', 'run', golden, '--k', '1', '--out', join(dir, 'b.json')], { env });
    expect(b.stdout).toMatch(/3 queries\s+recall@1/);
    const cmp = kb(['eval', 'compare', join(dir, 'a.json'), join(dir, 'b.json'), '--json'], { env });
    expect(cmp.json()).toMatchObject({ metrics: { mrr: { delta: 0 } } });
    const broken = join(dir, 'broken.jsonl');
    await writeFile(broken, '{"query": "x"}\n');
    expect(kb(['eval', 'run', broken, '--json'], { env }).json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
  });

  it('runs as `npm run kb --` from the repo root, before kb is on PATH', async () => {
    const { env } = await setup();
    const r = spawnSync('npm', ['run', '--silent', 'kb', '--', '--version'], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('answers --help and --version without an index', async () => {
    const { env } = await setup();
    expect(kb(['--help'], { env }).stdout).toMatch(/ingest.*\n[\s\S]*search/);
    expect(kb(['--version'], { env }).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(existsSync(env.KB_DATA_DIR!)).toBe(false);
  });
});
