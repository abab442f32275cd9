// Changes one setting in the data dir's config.yaml, keeping the user's comments and layout, and
// replacing the file atomically so a crash never leaves half a config. A data dir with no config.yaml
// yet gets kb init's commented one (every setting, its default and what it does) with the change in
// it; maps are written as blocks, and a section left empty by taking a key out goes with it.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KbError } from '../../shared/errors.js';
import { CONFIG_FILE } from './load.js';

/** Sets one key in the data dir's config.yaml; `undefined` takes it out (its default applies again). */
export async function setDataDirSetting(dataDir: string, path: string[], value: string | number | boolean | undefined): Promise<string> {
  const { Document, isMap, parseDocument } = await import('yaml');
  const file = join(dataDir, CONFIG_FILE);
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new KbError('CONFIG_INVALID', `cannot read ${file}: ${(e as Error).message}`);
    const { CONFIG_TEMPLATE } = await import('./template.js');
    text = CONFIG_TEMPLATE;
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
    // A section left with nothing in it goes too (no `ask: {}` behind).
    for (let n = path.length - 1; n > 0; n--) {
      const parent = doc.getIn(path.slice(0, n), true);
      if (isMap(parent) && parent.items.length === 0) doc.deleteIn(path.slice(0, n));
      else break;
    }
  } else {
    doc.setIn(path, value);
    // Maps made on the way (or an empty file's `{}`) are written as blocks, one key a line.
    if (isMap(doc.contents)) doc.contents.flow = false;
    for (let n = 1; n < path.length; n++) {
      const m = doc.getIn(path.slice(0, n), true);
      if (isMap(m)) m.flow = false;
    }
  }
  // A name of its own: two writes at once must never rename each other's file.
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(tmp, doc.toString(), { mode: 0o600 });
  await rename(tmp, file);
  return file;
}
