// Writes the JSON Schemas of every `kb … --json` output into docs/schema/v1/ (tools/json-schemas.ts
// makes them from the zod contracts in src/shared). `npx tsx scripts/schemas.ts --check` fails if the
// committed files are out of date.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { schemaFiles } from '../tools/json-schemas.js';

const dir = resolve(import.meta.dirname, '../docs/schema/v1');

const check = process.argv.includes('--check');
mkdirSync(dir, { recursive: true });
let stale = 0;
const files = Object.entries(schemaFiles());
for (const [file, text] of files) {
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
if (!check) console.log(`wrote ${files.length} schemas to docs/schema/v1/`);
