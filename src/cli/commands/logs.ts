// kb logs: where kb's log files are and their last lines, one file per process (worker, serve, cli,
// main), newest last. Lines are JSON (pino); printed as time, level, process, message and fields.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { logsDir, resolveSettings } from '../../worker/index.js';
import type { GlobalOptions } from '../context.js';
import { dim, EXIT, line, printJson, reportError, yellow } from '../output.js';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

interface Entry {
  time?: string;
  level?: number;
  proc?: string;
  msg?: string;
  [k: string]: unknown;
}

function render(raw: string): string {
  let e: Entry;
  try {
    e = JSON.parse(raw) as Entry;
  } catch {
    return raw;
  }
  const { time, level, proc, msg, pid: _pid, hostname: _h, ...fields } = e;
  const lvl = LEVELS[level ?? 30] ?? String(level);
  const rest = Object.entries(fields)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const text = `${time ?? ''} ${lvl.padEnd(5)} ${proc ?? ''}: ${msg ?? ''}${rest ? ` ${dim(rest)}` : ''}`;
  return level !== undefined && level >= 40 ? yellow(text) : text;
}

export async function logsCommand(flags: { lines?: number }, g: GlobalOptions): Promise<number> {
  try {
    const settings = await resolveSettings(g.dataDir);
    const dir = logsDir(settings.dataDir);
    const files = existsSync(dir)
      ? readdirSync(dir)
          .filter((f) => /\.log$/.test(f))
          .map((f) => ({ file: join(dir, f), bytes: statSync(join(dir, f)).size, modified: statSync(join(dir, f)).mtime }))
          .sort((a, b) => a.modified.getTime() - b.modified.getTime())
      : [];
    const n = flags.lines ?? 20;
    if (g.json) {
      printJson({
        schema_version: 1,
        logs: dir,
        files: files.map((f) => ({ file: f.file, bytes: f.bytes, modified: f.modified.toISOString() })),
      });
      return EXIT.ok;
    }
    if (files.length === 0) {
      line(`no logs yet in ${dir}`);
      return EXIT.ok;
    }
    for (const f of files) {
      line(dim(`── ${f.file}`));
      const lines = readFileSync(f.file, 'utf8').split('\n').filter(Boolean).slice(-n);
      for (const l of lines) line(render(l));
    }
    return EXIT.ok;
  } catch (e) {
    return reportError(e, g.json === true);
  }
}
