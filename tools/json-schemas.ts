// The JSON Schemas of every `kb … --json` output, made from the zod contracts in src/shared: written
// into docs/schema/v1/ by scripts/schemas.ts, and held against those files by test/schemas.test.ts.
import { z } from 'zod';
import { CLI_OUTPUTS } from '../src/shared/cli-output.js';

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
