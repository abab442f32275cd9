// `kb init` writes CONFIG_TEMPLATE: every value it shows must be the default it claims to be.
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigSchema, defaultConfig } from '../src/shared/config.js';
import { CONFIG_TEMPLATE } from '../src/worker/config/template.js';

describe('the config template', () => {
  it('parses, and every value in it is the default', () => {
    const written = ConfigSchema.parse(parse(CONFIG_TEMPLATE));
    expect(written).toEqual(defaultConfig());
    expect(written.ask).toMatchObject({ model: 'llama3.2', gate: { min_coverage: 0.6, min_strength: 2 } });
  });
});

describe('a setting the app writes (issue 49)', () => {
  it('starts a new config.yaml from the commented template, writes blocks, and takes an emptied section out', async () => {
    const { mkdtemp, readFile, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { setDataDirSetting } = await import('../src/worker/config/write.js');
    const fresh = await mkdtemp(join(tmpdir(), 'kb-cfg-'));
    await setDataDirSetting(fresh, ['ask', 'top'], 5);
    const text = await readFile(join(fresh, 'config.yaml'), 'utf8');
    expect(text.startsWith('# kb configuration.')).toBe(true);
    expect(text).toMatch(/^ {2}top: 5 # passages retrieved for a question/m);
    expect(ConfigSchema.parse(parse(text)).ask.top).toBe(5);

    const mine = await mkdtemp(join(tmpdir(), 'kb-cfg-'));
    await writeFile(join(mine, 'config.yaml'), '# my own notes\n');
    await setDataDirSetting(mine, ['ask', 'top'], 5);
    await setDataDirSetting(mine, ['ui', 'theme'], 'dark');
    expect(await readFile(join(mine, 'config.yaml'), 'utf8')).toBe('# my own notes\n\nask:\n  top: 5\nui:\n  theme: dark\n');
    await setDataDirSetting(mine, ['ask', 'top'], undefined);
    expect(await readFile(join(mine, 'config.yaml'), 'utf8')).toBe('# my own notes\n\nui:\n  theme: dark\n');
  });
});
