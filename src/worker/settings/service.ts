// The settings the app changes (settings.get / settings.set): read with what overrides them, checked
// against the config schema before anything is written, written into the data dir's config.yaml with
// its comments kept (config/write.ts), and applied to the running engine where that is safe.
import { join } from 'node:path';
import { ConfigSchema } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import { SETTING_KEYS, SETTINGS, type SettingKey, type SettingSet, type Settings } from '../../shared/settings.js';
import { SCHEMA_VERSION } from '../../shared/wire.js';
import type { z } from 'zod';
import type { Core } from '../core.js';
import { CONFIG_FILE } from '../config/load.js';

type Value = string | number | boolean;
type Tree = Record<string, unknown>;

function getPath(tree: Tree, path: string[]): unknown {
  let node: unknown = tree;
  for (const k of path) node = node !== null && typeof node === 'object' ? (node as Tree)[k] : undefined;
  return node;
}

function setPath(tree: Tree, path: string[], value: unknown): void {
  let node = tree;
  for (const k of path.slice(0, -1)) {
    const next = node[k];
    if (next === null || typeof next !== 'object') node[k] = {};
    node = node[k] as Tree;
  }
  node[path[path.length - 1]!] = value;
}

function unsetPath(tree: Tree, path: string[]): void {
  const parent = getPath(tree, path.slice(0, -1));
  if (parent !== null && typeof parent === 'object') delete (parent as Tree)[path[path.length - 1]!];
}

/** zod's issues as words, without their paths (zod's own phrasing when the schema gives none). */
function issueWords(error: z.ZodError): string {
  return error.issues.map((i) => i.message).join('; ');
}

export class SettingsService {
  /** Keys written since this engine opened that only a restart applies. */
  private readonly restartNeeded = new Set<SettingKey>();
  /**
   * The change before this one: changes are made one at a time, each checked against and written
   * over the one before (a person tabbing through the form sends them faster than a file is written).
   */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly core: Core) {}

  private tree(): Tree {
    // The config is plain data (zod output): walked by key path here, and only here.
    return this.core.config as unknown as Tree;
  }

  /** The environment variable that sets this key, if one does. */
  private setBy(key: SettingKey): string | undefined {
    return (this.core.fromEnv as Partial<Record<string, string>>)[key];
  }

  async get(): Promise<Settings> {
    const values: Record<string, Value> = {};
    const overridden: Record<string, string> = {};
    for (const key of SETTING_KEYS) {
      const env = this.setBy(key);
      if (env) overridden[key] = env;
      const v = getPath(this.tree(), key.split('.'));
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') values[key] = v;
    }
    const [{ ollamaFor }, { installedOcrLanguages }] = await Promise.all([import('../ollama.js'), import('../ingest/ocr/ocr.js')]);
    return {
      schema_version: SCHEMA_VERSION,
      data_dir: this.core.dataDir,
      config_file: join(this.core.dataDir, CONFIG_FILE),
      values,
      overridden,
      restart_needed: [...this.restartNeeded],
      ollama: await ollamaFor(this.core.config.ask).inventory(),
      ocr_languages_installed: installedOcrLanguages(this.core.config.ocr.lang_path),
    };
  }

  /**
   * Changes one setting. An empty text is no value: the key leaves config.yaml and its default is back
   * (a setting with no default refuses it). The note says in words what happened.
   */
  set(key: SettingKey, value: Value): Promise<SettingSet> {
    const run = this.last.then(() => this.setNow(key, value));
    this.last = run.catch(() => undefined);
    return run;
  }

  private async setNow(key: SettingKey, value: Value): Promise<SettingSet> {
    this.core.assertWritable('change its settings');
    const path = key.split('.');
    const cleared = typeof value === 'string' && value.trim() === '';
    // Checked as the whole config would be with the new value: a wrong type or a bad URL is refused
    // before config.yaml is touched.
    const next = structuredClone(this.tree());
    if (cleared) unsetPath(next, path);
    else setPath(next, path, value);
    const parsed = ConfigSchema.safeParse(next);
    // The app shows this beside the field, so the field's name is not repeated: only what is wrong.
    if (!parsed.success)
      throw new KbError('CONFIG_INVALID', `Not saved: ${cleared ? 'this setting needs a value' : issueWords(parsed.error)}.`);
    const checked = getPath(parsed.data as unknown as Tree, path);
    if (typeof checked !== 'string' && typeof checked !== 'number' && typeof checked !== 'boolean')
      throw new KbError('CONFIG_INVALID', 'Not saved: this setting needs a value.');
    if (key === 'audio.ffmpeg_path' && typeof checked === 'string' && checked !== '') {
      // A path that runs no ffmpeg would only be found out at the next recording.
      const { findFfmpeg } = await import('../audio/decode.js');
      try {
        findFfmpeg(checked);
      } catch {
        throw new KbError('CONFIG_INVALID', `Not saved: no ffmpeg runs at ${checked}.`);
      }
    }
    const { setDataDirSetting } = await import('../config/write.js');
    const file = await setDataDirSetting(this.core.dataDir, path, cleared ? undefined : checked);
    const { live } = SETTINGS[key];
    const env = this.setBy(key);
    // A key a variable sets keeps the variable's value in effect: the file's is for when it is unset.
    if (live && !env) setPath(this.tree(), path, checked);
    else if (!live) this.restartNeeded.add(key);
    this.core.log.info({ key, live, cleared }, 'setting changed');
    const wins = env ? ` — but ${env} is set in kb's environment and still wins` : '';
    const what = cleared ? `Back to the default${String(checked) === '' ? '' : `, ${String(checked)}`}` : `Saved ${String(checked)}`;
    return {
      schema_version: SCHEMA_VERSION,
      key,
      value: checked,
      file,
      applied: live ? 'live' : 'restart',
      note: `${what}: ${live ? 'in effect now' : 'takes effect when the app or kb serve restarts'}${wins}`,
    };
  }
}
