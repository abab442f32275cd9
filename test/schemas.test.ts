// The JSON of every `kb … --json` command, against the JSON Schemas committed in docs/schema/v1/:
// the files must be what the contracts generate, and real output from a real session must validate —
// against the published schema, and against the strict one (no property the schema does not name).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { schemaFiles, strictSchema } from '../tools/json-schemas.js';
import { makeTestModel } from './support/make-test-model.js';
import type { CLI_OUTPUTS } from '../src/shared/cli-output.js';
import { corporaDir, kb, repoRoot, tempDir, writeTree } from './helpers.js';

type Name = keyof typeof CLI_OUTPUTS;
const ajv = new Ajv2020({ strict: false, allErrors: true });
const published = (name: Name): Record<string, unknown> =>
  JSON.parse(readFileSync(join(repoRoot, 'docs/schema/v1', `${name}.schema.json`), 'utf8')) as Record<string, unknown>;

function check(name: Name, value: unknown): void {
  for (const [which, schema] of [
    ['published', published(name)],
    ['strict', strictSchema(name)],
  ] as const) {
    const id = `${which}-${name}`;
    const validate = ajv.getSchema(id) ?? ajv.compile({ ...schema, $id: id });
    if (!validate(value)) throw new Error(`${name} (${which}): ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`);
  }
}

/** Runs a long-lived command until its first JSON line(s), then stops it. */
function firstJson(args: string[], env: Record<string, string>, lines: number): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin/kb.js'), ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    const got: unknown[] = [];
    let stopping = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // Pretty JSON (serve) ends with "\n}"; NDJSON (watch) is a line each.
      for (;;) {
        const end = out.startsWith('{\n') ? out.indexOf('\n}') + 2 : out.indexOf('\n');
        if (end <= 0 || (out.startsWith('{\n') && end < 2)) break;
        got.push(JSON.parse(out.slice(0, end)));
        out = out.slice(end).replace(/^\n/, '');
      }
      if (got.length >= lines && !stopping) {
        stopping = true; // once: a second SIGINT would cut its shutdown short
        child.kill('SIGINT');
      }
    });
    // Resolved once it has stopped: what it writes as it stops (its log) is there.
    child.on('exit', (code) => (got.length < lines ? reject(new Error(`exited ${code} before ${lines} JSON outputs`)) : resolve(got)));
  });
}

describe('JSON Schemas (docs/schema/v1)', () => {
  it('are what the contracts in src/shared generate (run npx tsx scripts/schemas.ts after changing them)', () => {
    for (const [file, text] of Object.entries(schemaFiles()))
      expect(readFileSync(join(repoRoot, 'docs/schema/v1', file), 'utf8'), file).toBe(text);
  });

  it('describe the real output of every command', async () => {
    const dir = await tempDir();
    await writeTree(dir, {
      'notes/a.md': '# Alpha\n\nThe walrus swims in cold water.\n',
      'notes/b.md': '# Bravo\n\nThe heron waits.\n',
      'other/c.md': '# C\n\ncharlie\n',
    });
    const env = { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml'), KB_OLLAMA_HOST: 'http://127.0.0.1:1' };
    const json = (args: string[], code = 0): Record<string, unknown> => {
      const r = kb([...args, '--json'], { env });
      expect([args.join(' '), r.code]).toEqual([args.join(' '), code]);
      return r.json();
    };
    check('init', json(['init']));
    check('add', json(['add', join(dir, 'notes')]));
    check('collections', json(['collections']));
    check('ingest', json(['ingest', join(dir, 'other')]));
    const search = json(['search', 'walrus', '--explain']);
    check('search', search);
    check('ask', json(['ask', 'where does the walrus swim?'], 1));
    const uri = (search.results as { citation: { uri: string } }[])[0]!.citation.uri;
    check('get', json(['get', uri]));
    check('status', json(['status']));
    check('ls', json(['ls']));
    const doc = json(['inspect', 'doc', join(dir, 'notes/a.md')]);
    check('inspect-doc', doc);
    check('inspect-chunk', json(['inspect', 'chunk', (doc.chunks as { id: string }[])[0]!.id]));
    check('doctor', json(['doctor']));
    check('doctor-fix', json(['doctor', '--fix']));
    check('models-list', json(['models', 'list']));
    // An embedding model (the test suite's own, random weights) for reindex; a speech model file for models-install.
    check(
      'models-install',
      json(['models', 'import', makeTestModel({ arch: 'minilm-l6', out: join(dir, 'model') }), '--as', 'all-MiniLM-L6-v2']),
    );
    check('reindex', json(['reindex']));
    check('models-remove', json(['models', 'remove', 'all-MiniLM-L6-v2']));
    writeFileSync(
      join(dir, 'golden.jsonl'),
      '{"query": "walrus", "expected_paths": ["notes/a.md"]}\n{"query": "heron", "expected_paths": ["notes/b.md"]}\n',
    );
    const run = json(['eval', 'run', join(dir, 'golden.jsonl')]);
    check('eval-run', run);
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
    check('eval-compare', json(['eval', 'compare', join(dir, 'run.json'), join(dir, 'run.json')]));
    check('remove', json(['remove', join(dir, 'other')]));
    check('gc', json(['gc']));
    for (const line of await firstJson(['watch', '--json'], env, 2)) check('watch', line);
    check('serve', (await firstJson(['serve', '--json'], env, 1))[0]);
    const logs = json(['logs']);
    check('logs', logs);
    expect((logs.files as { file: string }[]).map((f) => f.file.split('/').pop()).sort()).toEqual(['cli.log', 'serve.log', 'worker.log']);
    check('forget', json(['forget', 'notes']));
    check('error', json(['get', join(dir, 'nope.md')], 1));
  }, 120_000);

  it.skipIf(!corporaDir())('describe a speech model install', async () => {
    const dir = await tempDir();
    const head = Buffer.alloc(48);
    head.writeUInt32LE(0x67676d6c, 0);
    [51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1].forEach((v, i) => head.writeInt32LE(v, 4 + 4 * i));
    writeFileSync(join(dir, 'm.bin'), Buffer.concat([head, Buffer.alloc(80_000_000)]));
    const r = kb(['models', 'import', join(dir, 'm.bin'), '--as', 'whisper-custom', '--json'], {
      env: { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') },
    });
    check('models-install', r.json());
  });
});
