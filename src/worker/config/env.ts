// The environment variables that set a setting, folded into the config once, where it is resolved:
// the rest of the engine reads the config alone, and asks `fromEnv` which keys a variable set (the
// Settings view says so; a pull that failed names the mirror it went to).
import type { Config } from '../../shared/config.js';

/** Each variable and the setting it overrides. */
export const ENV_SETTINGS = {
  KB_OLLAMA_HOST: 'ask.ollama_host',
  KB_OLLAMA_MODEL: 'ask.model',
  KB_HF_ENDPOINT: 'models.hub_endpoint',
  KB_LOG_LEVEL: 'log.level',
  KB_STORE: 'store.url',
} as const;

export type EnvSetting = (typeof ENV_SETTINGS)[keyof typeof ENV_SETTINGS];

export interface InEffect {
  config: Config;
  /** The keys an environment variable set, and which variable. */
  fromEnv: Partial<Record<EnvSetting, keyof typeof ENV_SETTINGS>>;
}

const LOG_LEVELS = new Set(['error', 'warn', 'info', 'debug']);

/**
 * The config with the environment's overrides applied. An empty variable is unset; a log level that
 * is none of the four is ignored (the config's stands), as it always was.
 */
export function withEnvironment(config: Config, env: Readonly<Record<string, string | undefined>> = process.env): InEffect {
  const next = structuredClone(config);
  const fromEnv: InEffect['fromEnv'] = {};
  for (const [name, key] of Object.entries(ENV_SETTINGS) as [keyof typeof ENV_SETTINGS, EnvSetting][]) {
    const value = env[name];
    if (!value || (key === 'log.level' && !LOG_LEVELS.has(value))) continue;
    const [group, leaf] = key.split('.') as [keyof Config, string];
    (next[group] as Record<string, unknown>)[leaf] = value;
    fromEnv[key] = name;
  }
  return { config: next, fromEnv };
}
