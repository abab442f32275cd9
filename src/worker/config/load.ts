// Where the data dir is and what the config says. Precedence for the data dir:
// --data-dir flag > KB_DATA_DIR > `data_dir:` in the global config file > the OS data dir.
// Settings: defaults < global config (~/.config/kb/config.yaml) < <data dir>/config.yaml.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Config, ConfigSchema } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import envPaths from 'env-paths';
import { unknownKeys } from './unknown-keys.js';
import { type InEffect, withEnvironment } from './env.js';
import { describeIssues } from '../../shared/issues.js';

export const CONFIG_FILE = 'config.yaml';

/** The OS's folders for kb (env-paths): XDG on Linux, Library on macOS, AppData on Windows. Read each time: tests set XDG_*. */
const osPaths = (): { data: string; config: string } => envPaths('kb', { suffix: '' });

export function defaultDataDir(): string {
  return osPaths().data;
}

export function globalConfigPath(): string {
  if (process.env.KB_CONFIG) return resolve(process.env.KB_CONFIG); // empty: unset
  return join(osPaths().config, CONFIG_FILE);
}

async function readYaml(file: string): Promise<Record<string, unknown> | null> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new KbError('CONFIG_INVALID', `cannot read ${file}: ${(e as Error).message}`);
  }
  const { parse } = await import('yaml');
  let data: unknown;
  try {
    data = parse(text);
  } catch (e) {
    throw new KbError('CONFIG_INVALID', `${file} is not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== 'object' || Array.isArray(data)) throw new KbError('CONFIG_INVALID', `${file} must be a mapping of settings`);
  return data as Record<string, unknown>;
}

function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] =
      v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

export interface ResolvedSettings {
  dataDir: string;
  /** The values in effect: the files' settings with the environment's overrides (config/env.ts). */
  config: Config;
  fromEnv: InEffect['fromEnv'];
  files: string[];
  /**
   * What is wrong with the config files: unknown (misspelt) settings, which are ignored, and — when
   * read leniently — files that could not be used at all, whose settings fell back to the defaults.
   */
  problems: string[];
}

/**
 * The data dir and the settings. A config file that is unreadable, not YAML or not valid settings is
 * an error (CONFIG_INVALID), unless `lenient` (kb doctor, which reports it as a failed check and
 * goes on with the defaults).
 */
export async function resolveSettings(flagDataDir?: string, opts: { lenient?: boolean } = {}): Promise<ResolvedSettings> {
  const problems: string[] = [];
  const read = async (file: string): Promise<Record<string, unknown>> => {
    try {
      return (await readYaml(file)) ?? {};
    } catch (e) {
      if (!opts.lenient) throw e;
      problems.push(`${(e as Error).message}; the defaults are used instead`);
      return {};
    }
  };
  const globalFile = globalConfigPath();
  const global = await read(globalFile);
  const fromGlobal = typeof global.data_dir === 'string' ? global.data_dir.replace(/^~(?=\/|$)/, homedir()) : undefined;
  // An empty flag or variable means unset, not "the current folder".
  const dataDir = resolve(flagDataDir || process.env.KB_DATA_DIR || fromGlobal || defaultDataDir());
  const localFile = join(dataDir, CONFIG_FILE);
  const local = await read(localFile);
  const files = [globalFile, localFile].filter((_, i) => (i === 0 ? Object.keys(global).length > 0 : Object.keys(local).length > 0));
  for (const [file, data] of [
    [globalFile, global],
    [localFile, local],
  ] as const) {
    for (const u of unknownKeys(ConfigSchema, data)) {
      problems.push(`${file}: unknown setting ${u.key}${u.suggestion ? ` (did you mean ${u.suggestion}?)` : ''}, ignored`);
    }
  }
  const merged = deepMerge(global, local);
  const where = files.join(' / ') || 'config';
  let parsed = ConfigSchema.safeParse(merged);
  // A bad value of a setting that only changes how kb looks falls back to its default, said as a
  // misspelt one is: nothing is written or read differently because of it.
  const cosmetic = parsed.error?.issues.filter((i) => FALLS_BACK.includes(String(i.path[0]))) ?? [];
  if (cosmetic.length > 0 && cosmetic.length === parsed.error?.issues.length) {
    const byKey = new Map<string, typeof cosmetic>();
    for (const i of cosmetic) byKey.set(i.path.join('.'), [...(byKey.get(i.path.join('.')) ?? []), i]);
    for (const [key, issues] of byKey) {
      dropKey(merged, issues[0]!.path);
      problems.push(`${where}: ${key}: ${issues.map((i) => i.message).join('; ')}; ignored, its default is used`);
    }
    parsed = ConfigSchema.safeParse(merged);
  }
  if (parsed.success) return { dataDir, ...withEnvironment(parsed.data), files, problems };
  const message = `${where}: ${describeIssues(parsed.error)}`;
  if (!opts.lenient) throw new KbError('CONFIG_INVALID', message);
  problems.push(`${message}; kb refuses to run until it is fixed (kb doctor alone reads it with the defaults)`);
  return { dataDir, ...withEnvironment(ConfigSchema.parse({})), files, problems };
}

/**
 * The settings whose bad values fall back to their defaults: how kb looks, never where it reads or
 * writes (a store's address or the data dir wrong must stop kb, not send it elsewhere).
 */
const FALLS_BACK = ['ui'];

function dropKey(data: Record<string, unknown>, path: readonly PropertyKey[]): void {
  let at: unknown = data;
  for (const k of path.slice(0, -1)) at = at && typeof at === 'object' ? (at as Record<PropertyKey, unknown>)[k] : undefined;
  if (at && typeof at === 'object') delete (at as Record<PropertyKey, unknown>)[path[path.length - 1]!];
}
