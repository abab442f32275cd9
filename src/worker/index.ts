// The engine's public face: the only module outside src/worker may import (lint-enforced).
export { Engine } from './engine.js';
export { openEngine } from './open-engine.js';
export { type LocalClient, localClient } from './loop.js';
export type {
  CollectionInfo,
  FixResult,
  GcResult,
  IngestCallOptions,
  InspectedChunk,
  InspectedDocument,
  OpenEngineOptions,
} from './engine.js';
export { resolveSettings, defaultDataDir, globalConfigPath, CONFIG_FILE } from './config/load.js';
export type { ResolvedSettings } from './config/load.js';
export { CONFIG_TEMPLATE } from './config/template.js';
export { runEval, compareRuns, readGolden } from './eval/golden.js';
export type { EvalRun, EvalComparison, QueryOutcome } from './eval/golden.js';
export { ndcg, averagePrecision, precisionAt, recallAt, reciprocalRank, mean } from './eval/metrics.js';
export type { ModelInfo } from './models/embedding-store.js';
export type { SpeechModelInfo } from './models/speech-store.js';
export type { FileProgress } from './embed/download.js';
export { MODELS, DEFAULT_MODEL } from './embed/registry.js';
export { workerProcessEntry } from './threads.js';
export { KB_VERSION } from './version.js';
export { shownUrl } from './store/postgres/url.js';
export { SERVE_APP_NAME } from './store/postgres/app-name.js';
export { openLog, logsDir, errorFields, silentLog } from './log.js';
export type { Log } from './log.js';
export type { ThreadEntry } from './threads.js';
export type { ReconcileResult } from './collections/sync.js';
export type { CollectionWatcher, WatchEvent } from './collections/watcher.js';
export { connectServer, type RemoteClient } from './link/remote-client.js';
