// Structured logs: one JSON line per event (pino), into <data dir>/logs/<process>.log, rotated at 5 MB
// with 3 old files kept (rotating-file-stream). Each process has its own file, so two processes never
// rotate a file under each other. Above debug, a line holds paths, counts, timings and error codes,
// never document text, queries or answers: callers put those in debug lines only.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import { createStream } from 'rotating-file-stream';
import type { Config } from '../shared/config.js';

export type LogLevel = Config['log']['level'];
export type Process = 'worker' | 'cli' | 'serve' | 'main';

/** What kb's code logs through: pino's call shape, `log.warn({ path, code }, 'message')`. */
export interface Log {
  error(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
  debug(fields: object, msg: string): void;
  /** The file this log writes, or null when it writes nowhere. */
  readonly file: string | null;
  /** Ends the file; resolves once every line is written. */
  close(): Promise<void>;
}

export function logsDir(dataDir: string): string {
  return join(dataDir, 'logs');
}

export function logFile(dataDir: string, proc: Process): string {
  return join(logsDir(dataDir), `${proc}.log`);
}

/** The level asked for: KB_LOG_LEVEL, else the config's log.level. */
export function logLevel(config: Config): LogLevel {
  const env = process.env.KB_LOG_LEVEL;
  return env === 'error' || env === 'warn' || env === 'info' || env === 'debug' ? env : config.log.level;
}

export function openLog(dataDir: string, proc: Process, level: LogLevel): Log {
  const dir = logsDir(dataDir);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return silentLog; // a read-only data dir: kb still works, it just cannot keep a log there
  }
  const stream = createStream(`${proc}.log`, { path: dir, size: '5M', rotate: 3, mode: 0o600 });
  // A log that cannot be written must never take kb down with it.
  stream.on('error', () => undefined);
  const logger = pino({ level, base: { pid: process.pid, proc }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
  return {
    error: (f, m) => logger.error(f, m),
    warn: (f, m) => logger.warn(f, m),
    info: (f, m) => logger.info(f, m),
    debug: (f, m) => logger.debug(f, m),
    file: join(dir, `${proc}.log`),
    close: () => new Promise<void>((resolve) => stream.end(resolve)),
  };
}

export const silentLog: Log = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, file: null, close: async () => undefined };

/** An error as log fields: its code and first line, and the stack at debug. */
export function errorFields(e: unknown): { code: string; err: string } {
  const code = (e as { code?: unknown }).code;
  return { code: typeof code === 'string' ? code : 'INTERNAL', err: (e instanceof Error ? e.message : String(e)).split('\n')[0]! };
}
