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
