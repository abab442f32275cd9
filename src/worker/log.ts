// Structured logs: one JSON line per event (pino), into <data dir>/logs/<process>.log, rotated at 5 MB
// with 3 old files kept (rotating-file-stream). Each process has its own file, so two processes never
// rotate a file under each other. Above debug, a line holds paths, counts, timings and error codes,
// never document text, queries or answers: callers put those in debug lines only.
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Pino from 'pino';
import type * as Rfs from 'rotating-file-stream';

type Logger = Pino.Logger;
type RotatingFileStream = Rfs.RotatingFileStream;
import type { Config } from '../shared/config.js';
import { firstLine } from '../shared/errors.js';

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

const RANK: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };
/** pino and the rotating stream load on the first line written: a command that logs nothing never loads them. */
const requireLazily = createRequire(import.meta.url);

export function openLog(dataDir: string, proc: Process, level: LogLevel): Log {
  const dir = logsDir(dataDir);
  const name = `${proc}.log`;
  // undefined: not opened yet; null: cannot be (a read-only data dir: kb still works, without a log).
  let logger: Logger | null | undefined;
  let stream: RotatingFileStream | null = null;
  const open = (): Logger | null => {
    if (logger !== undefined) return logger;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const { createStream } = requireLazily('rotating-file-stream') as typeof Rfs;
      const { pino } = requireLazily('pino') as typeof Pino;
      const s = createStream(name, { path: dir, size: '5M', rotate: 3, mode: 0o600 });
      s.on('error', () => undefined); // a log that cannot be written must never take kb down with it
      stream = s;
      logger = pino({ level, base: { pid: process.pid, proc }, timestamp: pino.stdTimeFunctions.isoTime }, s);
    } catch {
      logger = null;
    }
    return logger;
  };
  const at =
    (l: LogLevel) =>
    (fields: object, msg: string): void => {
      if (RANK[l] >= RANK[level]) open()?.[l](fields, msg);
    };
  return {
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    debug: at('debug'),
    file: join(dir, name),
    close: () => new Promise<void>((resolve) => (stream ? stream.end(resolve) : resolve())),
  };
}

export const silentLog: Log = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  file: null,
  close: async () => undefined,
};

/** An error as log fields: its code and first line, and the stack at debug. */
export function errorFields(e: unknown): { code: string; err: string } {
  const code = (e as { code?: unknown }).code;
  return { code: typeof code === 'string' ? code : 'INTERNAL', err: firstLine(e) };
}
