// The app's own log (Electron's main process): windows, the worker's restarts, calls that failed in
// the bridge. One JSON line per event (pino) in Electron's logs folder, rotated like the worker's.
// The worker logs into the data dir (kb logs); main cannot know that folder before the worker says.
import { pino, type Logger } from 'pino';
import { createStream } from 'rotating-file-stream';

export function openMainLog(dir: string, level = process.env.KB_LOG_LEVEL ?? 'info'): Logger {
  const stream = createStream('main.log', { path: dir, size: '5M', rotate: 3, mode: 0o600 });
  stream.on('error', () => undefined); // a log that cannot be written never takes the app down
  return pino({ level, base: { pid: process.pid, proc: 'main' }, timestamp: pino.stdTimeFunctions.isoTime }, stream);
}
