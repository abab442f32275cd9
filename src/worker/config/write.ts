// Changes one setting in the data dir's config.yaml, keeping the user's comments and layout, and
// replacing the file atomically so a crash never leaves half a config.
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { CONFIG_FILE } from './load.js';

/** Sets one key in the data dir's config.yaml; `undefined` takes it out (its default applies again). */
export async function setDataDirSetting(dataDir: string, path: string[], value: string | number | boolean | undefined): Promise<string> {
  const { Document, parseDocument } = await import('yaml');
  const file = join(dataDir, CONFIG_FILE);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new KbError('CONFIG_INVALID', `cannot read ${file}: ${(e as Error).message}`);
  }
  const parsed = parseDocument(text);
  if (parsed.errors.length > 0) throw new KbError('CONFIG_INVALID', `${file} is not valid YAML: ${parsed.errors[0]!.message}`);
  let doc: InstanceType<typeof Document> = parsed;
  if (parsed.contents === null) {
    // Only comments so far: keep them above the new setting.
    doc = new Document({});
    doc.commentBefore = [parsed.commentBefore, parsed.comment].filter(Boolean).join('\n') || null;
  }
  if (value === undefined) {
    if (doc.hasIn(path)) doc.deleteIn(path);
  } else doc.setIn(path, value);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, doc.toString(), { mode: 0o600 });
  await rename(tmp, file);
  return file;
}
