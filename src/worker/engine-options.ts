// What an engine is opened with (open-engine.ts): the data dir, the config, and what kind of host it
// serves.
import type { Config, ConfigInput } from '../shared/config.js';
import type { Transcriber } from './audio/transcriber.js';
import type { InEffect } from './config/env.js';
import type { Log, Process } from './log.js';

export interface OpenEngineOptions {
  dataDir: string;
  config?: ConfigInput | Config;
  /**
   * Given with a config resolveSettings made (the environment already folded in): which keys a
   * variable set. Without it, the environment is folded into the config here.
   */
  fromEnv?: InEffect['fromEnv'];
  /** What resolveSettings found wrong with the config files; kb doctor reports it. */
  configProblems?: string[];
  /**
   * Long-lived hosts (the worker, the web host) reconcile SQLite and LanceDB in the background when
   * the vector half first opens: after a crash, chunks without vectors get them. A one-shot CLI search
   * leaves that to the next ingest.
   */
  reconcile?: boolean;
  /**
   * Opened for searching only, as a read-only data dir is, though kb may write it: kb serve's search
   * processes (cli/serve/search-router.ts) read the index the main process writes.
   */
  searchOnly?: boolean;
  /**
   * Speech → text for audio and video. Default: whisper.cpp with the installed speech model
   * (audio.model). Tests give a double that returns known segments: no whisper weights exist here.
   */
  transcriber?: () => Transcriber;
  /** Where the engine logs: the host's log, or else its own file for this kind of process (default cli). */
  log?: Log;
  process?: Process;
}
