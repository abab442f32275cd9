// Where the data dir is and what the config says. Precedence for the data dir:
// --data-dir flag > KB_DATA_DIR > `data_dir:` in the global config file > the OS data dir.
// Settings: defaults < global config (~/.config/kb/config.yaml) < <data dir>/config.yaml.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Config, ConfigSchema } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';

export const CONFIG_FILE = 'config.yaml';

function xdg(envVar: string, fallback: string): string {
  const v = process.env[envVar];
  return v && v.startsWith('/') ? v : join(homedir(), fallback);
}

export function defaultDataDir(): string {
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'kb');
  if (process.platform === 'win32') return join(process.env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'kb', 'Data');
  return join(xdg('XDG_DATA_HOME', '.local/share'), 'kb');
}

export function globalConfigPath(): string {
  if (process.env.KB_CONFIG) return resolve(process.env.KB_CONFIG); // empty: unset
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'kb', CONFIG_FILE);
  if (process.platform === 'win32') return join(process.env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'kb', CONFIG_FILE);
  return join(xdg('XDG_CONFIG_HOME', '.config'), 'kb', CONFIG_FILE);
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
    throw new KbError('CONFIG_INVALID', `${file} is not valid YAML: ${(e as Error).message}`);
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
  config: Config;
  files: string[];
}

export async function resolveSettings(flagDataDir?: string): Promise<ResolvedSettings> {
  const globalFile = globalConfigPath();
  const global = (await readYaml(globalFile)) ?? {};
  const fromGlobal = typeof global.data_dir === 'string' ? global.data_dir.replace(/^~(?=\/|$)/, homedir()) : undefined;
  // An empty flag or variable means unset, not "the current folder".
  const dataDir = resolve(flagDataDir || process.env.KB_DATA_DIR || fromGlobal || defaultDataDir());
  const localFile = join(dataDir, CONFIG_FILE);
  const local = (await readYaml(localFile)) ?? {};
  const files = [globalFile, localFile].filter((_, i) => (i === 0 ? Object.keys(global).length > 0 : Object.keys(local).length > 0));
  const merged = deepMerge(global, local);
  const parsed = ConfigSchema.safeParse(merged);
  if (!parsed.success) {
    const where = files.join(' / ') || 'config';
    throw new KbError('CONFIG_INVALID', `${where}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  return { dataDir, config: parsed.data, files };
}
