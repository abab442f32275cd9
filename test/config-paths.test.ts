// Where kb keeps its data and its global config on this OS (env-paths), unless told otherwise.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultDataDir, globalConfigPath } from '../src/worker/index.js';

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

describe.runIf(process.platform === 'linux')('OS folders', () => {
  it('follow XDG_DATA_HOME and XDG_CONFIG_HOME, else ~/.local/share and ~/.config', () => {
    process.env.XDG_DATA_HOME = '/srv/data';
    process.env.XDG_CONFIG_HOME = '/srv/config';
    delete process.env.KB_CONFIG;
    expect(defaultDataDir()).toBe('/srv/data/kb');
    expect(globalConfigPath()).toBe('/srv/config/kb/config.yaml');
    delete process.env.XDG_DATA_HOME;
    delete process.env.XDG_CONFIG_HOME;
    expect(defaultDataDir()).toBe(join(homedir(), '.local/share/kb'));
    expect(globalConfigPath()).toBe(join(homedir(), '.config/kb/config.yaml'));
    process.env.KB_CONFIG = 'elsewhere.yaml';
    expect(globalConfigPath()).toBe(join(process.cwd(), 'elsewhere.yaml'));
  });
});
