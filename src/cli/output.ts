// How the CLI speaks: JSON documents on stdout in --json mode, readable text otherwise.
import { homedir } from 'node:os';
import { relative } from 'node:path';
import { styleText } from 'node:util';
import { toErrorPayload, type ErrorCode } from '../shared/errors.js';
import { SCHEMA_VERSION } from '../shared/wire.js';

/** interrupted: Ctrl-C stopped it (128 + SIGINT, as a shell reports it): what was done stays, the rest is not. */
export const EXIT = { ok: 0, error: 1, usage: 2, partial: 3, interrupted: 130 } as const;

// node:util's styleText colours only when stdout is a terminal and NO_COLOR/FORCE_COLOR allow it.
export const bold = (s: string): string => styleText('bold', s);
export const dim = (s: string): string => styleText('dim', s);
export const cyan = (s: string): string => styleText('cyan', s);
export const red = (s: string): string => styleText('red', s);
export const yellow = (s: string): string => styleText('yellow', s);

export function printJson(doc: unknown): void {
  process.stdout.write(JSON.stringify(doc, null, 2) + '\n');
}

export function line(s = ''): void {
  process.stdout.write(s + '\n');
}

/** A path as a person wants to read it: relative to the current folder when inside it, ~ for home. */
export function displayPath(p: string): string {
  const rel = relative(process.cwd(), p);
  if (rel && !rel.startsWith('..') && !rel.startsWith('/')) return rel;
  const home = homedir();
  return p.startsWith(home + '/') ? '~' + p.slice(home.length) : p;
}

export function reportError(e: unknown, json: boolean, code?: ErrorCode): number {
  const payload = toErrorPayload(e);
  if (code) payload.code = code;
  if (json) printJson({ schema_version: SCHEMA_VERSION, error: payload });
  else process.stderr.write(`${red('kb: error:')} ${payload.message}${payload.code === 'INTERNAL' ? '' : dim(` (${payload.code})`)}\n`);
  if (payload.code === 'INTERNAL' && process.env.KB_DEBUG && e instanceof Error) process.stderr.write(`${e.stack}\n`);
  return payload.code === 'INVALID_ARGUMENT' ? EXIT.usage : EXIT.error;
}

/** Bold the highlighted ranges of a snippet. */
export function highlight(text: string, ranges: [number, number][]): string {
  if (ranges.length === 0) return text;
  let out = '';
  let at = 0;
  for (const [s, e] of ranges) {
    if (s < at) continue;
    out += text.slice(at, s) + bold(text.slice(s, e));
    at = e;
  }
  return out + text.slice(at);
}
