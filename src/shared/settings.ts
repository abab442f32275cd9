// The settings the app changes (its Settings view, through settings.get / settings.set): which keys,
// what each takes, and whether a running engine applies it at once or after a restart.
import { z } from 'zod';
import { SCHEMA_VERSION } from './wire.js';

/** Each key's dotted path in config.yaml, and whether a running engine picks it up without a restart. */
export const SETTINGS = {
  'ask.ollama_host': { live: true },
  'ask.model': { live: true },
  'ask.top': { live: true },
  'ocr.languages': { live: true },
  'ui.theme': { live: true },
  'ui.editor_uri': { live: true },
  'ui.updates': { live: true },
  'search.rerank': { live: true },
  'rerank.model': { live: true },
  'rerank.pause_ms': { live: true },
  'audio.ffmpeg_path': { live: true },
  'models.hub_endpoint': { live: true },
  'audio.model': { live: false },
  'audio.language': { live: false },
  store_originals: { live: false },
  'log.level': { live: false },
} as const;

export type SettingKey = keyof typeof SETTINGS;
export const SETTING_KEYS = Object.keys(SETTINGS) as [SettingKey, ...SettingKey[]];

const SettingValueSchema = z.union([z.string(), z.number(), z.boolean()]);

export const SettingsSetParamsSchema = z.object({ key: z.enum(SETTING_KEYS), value: SettingValueSchema }).strict();

export const OllamaStatusSchema = z.object({
  host: z.string(),
  model: z.string(),
  /** The server answered. */
  reachable: z.boolean(),
  version: z.string().nullable(),
  /** The models the server has (ollama list), fetched when asked. */
  models: z.array(z.string()),
  /** The configured model is among them. */
  model_pulled: z.boolean(),
  /** What is wrong and the exact next step, or what works. */
  detail: z.string(),
});
export type OllamaStatus = z.infer<typeof OllamaStatusSchema>;

export const SettingsSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  data_dir: z.string(),
  /** The data dir's config.yaml, which settings.set writes (comments kept). */
  config_file: z.string(),
  /** The value in effect for every key (an environment variable wins over the file). */
  values: z.record(z.string(), SettingValueSchema),
  /** Keys an environment variable sets, so a change in the file does nothing until it is unset. */
  overridden: z.record(z.string(), z.string()),
  /** Keys changed since this engine started that need a restart of the app or kb serve. */
  restart_needed: z.array(z.string()),
  ollama: OllamaStatusSchema,
  /** OCR languages with data on this machine (tesseract codes). */
  ocr_languages_installed: z.array(z.string()),
});
export type Settings = z.infer<typeof SettingsSchema>;

export const SettingSetSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  key: z.enum(SETTING_KEYS),
  value: SettingValueSchema,
  file: z.string(),
  /** live: in effect now; restart: written, in effect after the app or kb serve restarts. */
  applied: z.enum(['live', 'restart']),
  /** For people: what happens now, or which environment variable still wins. */
  note: z.string(),
});
export type SettingSet = z.infer<typeof SettingSetSchema>;
