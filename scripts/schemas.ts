// Writes the JSON Schemas of every `kb … --json` output into docs/schema/v1/ (from the zod contracts
// in src/shared). `npx tsx scripts/schemas.ts --check` fails if the committed files are out of date.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { CLI_OUTPUTS } from '../src/shared/cli-output.js';

const dir = resolve(import.meta.dirname, '../docs/schema/v1');

/** The exact shape kb prints today: no property it does not document (what the tests check). */
export function strictSchema(name: keyof typeof CLI_OUTPUTS): Record<string, unknown> {
  return z.toJSONSchema(CLI_OUTPUTS[name], { io: 'output', target: 'draft-2020-12' }) as Record<string, unknown>;
}

/** Published schemas let objects carry more properties: v1 may gain fields, never lose or rename them. */
function open(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(open);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) if (!(k === 'additionalProperties' && v === false)) out[k] = open(v);
    return out;
  }
  return node;
}

export function schemaFiles(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(CLI_OUTPUTS) as (keyof typeof CLI_OUTPUTS)[]) {
    const json = open(strictSchema(name)) as Record<string, unknown>;
    const doc = { $id: `https://kb.local/schema/v1/${name}.schema.json`, title: `kb ${name.replace('-', ' ')} --json`, ...json };
    out[`${name}.schema.json`] = `${JSON.stringify(doc, null, 2)}\n`;
  }
  return out;
}

if (process.argv[1] && import.meta.filename === resolve(process.argv[1])) {
  const check = process.argv.includes('--check');
  mkdirSync(dir, { recursive: true });
  let stale = 0;
  for (const [file, text] of Object.entries(schemaFiles())) {
    const path = join(dir, file);
    if (check) {
      let have = '';
      try {
        have = readFileSync(path, 'utf8');
      } catch {
        // missing counts as stale
      }
      if (have !== text) {
        console.error(`out of date: docs/schema/v1/${file} (run: npx tsx scripts/schemas.ts)`);
        stale++;
      }
    } else writeFileSync(path, text);
  }
  if (stale) process.exit(1);
  if (!check) console.log(`wrote ${Object.keys(CLI_OUTPUTS).length} schemas to docs/schema/v1/`);
}
