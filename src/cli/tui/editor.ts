// Opening a cited span where the user reads code: $VISUAL or $EDITOR at the cited line, in the form
// each editor takes (vim +12 file, code -g file:12, hx file:12, …); an editor kb does not know gets
// +12 file, as most take; ui.editor_command overrides. PDFs, images, audio and anything without a line
// go to the system's opener.
import { basename } from 'node:path';

export interface Launch {
  command: string;
  args: string[];
}

/** Splits "code --wait" or '"/Applications/My Editor" -n' into a command and its own arguments. */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

const COLON_LINE = new Set(['hx', 'helix', 'subl', 'sublime_text', 'zed', 'mate', 'gedit', 'kate', 'atom']);
const GOTO_LINE = new Set(['code', 'code-insiders', 'codium', 'vscodium', 'cursor', 'windsurf']);

/**
 * How `editor` opens `file` at `line` (1-based), or at its start without one. A command holding
 * `{path}` (ui.editor_command, e.g. `subl {path}:{line}`) is used as written, each placeholder filled
 * in (no shell: a path with spaces stays one argument). An editor kb does not know gets `+LINE FILE`,
 * which most terminal editors take (vi, emacs, nano, micro, kak, joe, mg).
 */
export function editorLaunch(editor: string, file: string, line?: number): Launch {
  const [command, ...own] = splitCommand(editor);
  if (!command) throw new Error('no editor: set $VISUAL or $EDITOR');
  if (editor.includes('{path}')) {
    const fill = (a: string): string => a.replaceAll('{path}', file).replaceAll('{line}', String(line ?? 1));
    return { command: fill(command), args: own.map(fill) };
  }
  const name = basename(command)
    .replace(/\.exe$/i, '')
    .toLowerCase();
  if (line === undefined) return { command, args: [...own, file] };
  if (GOTO_LINE.has(name)) return { command, args: [...own, '-g', `${file}:${line}`] };
  if (COLON_LINE.has(name)) return { command, args: [...own, `${file}:${line}`] };
  return { command, args: [...own, `+${line}`, file] };
}

/** The editor to use: ui.editor_command when set, then $VISUAL, then $EDITOR; null when none is. */
export function editorFromEnv(env: NodeJS.ProcessEnv = process.env, configured?: string): string | null {
  return configured?.trim() || env.VISUAL?.trim() || env.EDITOR?.trim() || null;
}

/** The system's opener for a file (a PDF, a picture, a recording): xdg-open, open, or start. */
export function systemOpener(file: string, platform: NodeJS.Platform = process.platform): Launch {
  if (platform === 'darwin') return { command: 'open', args: [file] };
  if (platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '', file] };
  return { command: 'xdg-open', args: [file] };
}
