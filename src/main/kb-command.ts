// The `kb` command for the installs whose installer cannot place it: a macOS app dragged from its
// .dmg (no install step runs) and an AppImage (no install at all). The app's "Install the kb
// Command…" does it instead, as VS Code installs `code`. (The .deb links /usr/bin/kb itself and the
// Windows installer adds its bin folder to PATH: packaging/.) A file already there that is not kb's is
// replaced only when the person says so.
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The line that marks a `kb` script as written by this module (and so kb's to rewrite). */
const MARK = '# kb-command: written by the kb app';

export type KbCommand =
  /** macOS: /usr/local/bin/kb linked to the app's resources/bin/kb (packaging/cli/kb). */
  | { kind: 'link'; path: string; target: string; app: string }
  /** An AppImage: ~/.local/bin/kb, a script that mounts the AppImage for the run (its path moves with each run). */
  | { kind: 'script'; path: string; appImage: string; script: string };

export interface Running {
  platform: string;
  /** Electron's process.resourcesPath. */
  resourcesPath: string;
  /** $APPIMAGE, set by the AppImage runtime to the .AppImage file. */
  appImage: string | undefined;
  home: string;
}

/** Where this app's `kb` command belongs, or null where its installer placed it (or nothing can). */
export function kbCommandFor(r: Running): KbCommand | null {
  if (r.platform === 'darwin')
    return { kind: 'link', path: '/usr/local/bin/kb', target: join(r.resourcesPath, 'bin', 'kb'), app: dirname(dirname(r.resourcesPath)) };
  if (r.platform === 'linux' && r.appImage) {
    const path = join(r.home, '.local', 'bin', 'kb');
    return { kind: 'script', path, appImage: r.appImage, script: appImageScript(r.appImage) };
  }
  return null;
}

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs kb's CLI from inside the AppImage: the runtime's --appimage-mount keeps it mounted (and prints
 * where) while the app's own launcher runs, as Node, headless; the mount ends with the command, which
 * waits for it to be gone (so a script run right after finds it unmounted, and no orphan is left to reap).
 */
export function appImageScript(appImage: string): string {
  return `#!/bin/sh
${MARK} (src/main/kb-command.ts), for the AppImage below.
appimage=${q(appImage)}
if [ ! -x "$appimage" ]; then
  echo "kb: $appimage is gone: start the kb app you use now and choose Install the kb Command… again" >&2
  exit 127
fi
where="$(mktemp)"
"$appimage" --appimage-mount > "$where" &
mounted=$!
trap 'kill $mounted 2>/dev/null; wait $mounted 2>/dev/null; rm -f "$where"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
while [ ! -s "$where" ]; do
  if ! kill -0 $mounted 2>/dev/null; then
    echo "kb: $appimage could not be mounted (AppImages need FUSE: see https://docs.appimage.org/user-guide/troubleshooting/fuse.html)" >&2
    exit 1
  fi
  sleep 0.05
done
"$(head -n 1 "$where")/resources/bin/kb" "$@"
`;
}

/** A place on disk the app runs from that will not last: a mounted .dmg, or macOS's translocation of an app not yet moved. */
export function transient(cmd: Extract<KbCommand, { kind: 'link' }>): boolean {
  return cmd.app.startsWith('/Volumes/') || cmd.app.includes('/AppTranslocation/');
}

/** The shell command an administrator runs where the person may not write (macOS: /usr/local/bin). */
export function linkCommand(cmd: Extract<KbCommand, { kind: 'link' }>): string {
  return `mkdir -p ${q(dirname(cmd.path))} && ln -sfn ${q(cmd.target)} ${q(cmd.path)}`;
}

/** osascript's program asking for an administrator's password to run `command` (as VS Code does). */
export function adminScript(command: string): string {
  return `do shell script "${command.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}" with administrator privileges`;
}

export interface CommandHost {
  /** Runs a shell command as an administrator, asking for the password; rejects if refused. */
  asAdmin(command: string): Promise<void>;
  /** "`what` is at `path`, and is not kb's: replace it?" */
  confirmReplace(path: string, what: string): Promise<boolean>;
  /** The app's PATH, to say whether the new command's folder is on it. */
  pathVariable: string;
}

export interface InstallOutcome {
  installed: boolean;
  message: string;
  detail: string;
}

/** Disk writes, passed in so a test can refuse one as macOS refuses /usr/local/bin to a non-administrator. */
export interface CommandDisk {
  link(target: string, path: string): void;
  write(path: string, text: string): void;
}

/** Written beside the final name, then renamed over it: a crash leaves either the old file or the new. */
export const realDisk: CommandDisk = {
  link(target, path) {
    mkdirSync(dirname(path), { recursive: true });
    const next = `${path}.${randomUUID()}`;
    symlinkSync(target, next);
    renameOver(next, path);
  },
  write(path, text) {
    mkdirSync(dirname(path), { recursive: true });
    const next = `${path}.${randomUUID()}`;
    writeFileSync(next, text);
    chmodSync(next, 0o755);
    renameOver(next, path);
  },
};

function renameOver(next: string, path: string): void {
  try {
    renameSync(next, path);
  } catch (e) {
    rmSync(next, { force: true });
    throw e;
  }
}

type Found = { state: 'none' } | { state: 'ours'; current: boolean } | { state: 'foreign'; what: string };

/** What is at the command's path now. */
function found(cmd: KbCommand): Found {
  let isLink: boolean;
  try {
    isLink = lstatSync(cmd.path).isSymbolicLink();
  } catch {
    return { state: 'none' };
  }
  if (isLink) {
    const to = readlinkSync(cmd.path);
    if (cmd.kind === 'link' && to === cmd.target) return { state: 'ours', current: true };
    return { state: 'foreign', what: `a link to ${to}` };
  }
  let text = '';
  try {
    text = readFileSync(cmd.path, 'utf8').slice(0, 4096);
  } catch {
    // Unreadable: someone else's.
  }
  // A script of ours for another AppImage (an older download) is rewritten without asking.
  if (text.includes(MARK)) return { state: 'ours', current: cmd.kind === 'script' && text === cmd.script };
  return { state: 'foreign', what: 'a program that is not kb’s' };
}

/** Puts the `kb` command in place, saying what happened in words for a dialog. */
export async function installKbCommand(cmd: KbCommand, host: CommandHost, disk: CommandDisk = realDisk): Promise<InstallOutcome> {
  const use = 'Open a new terminal and run `kb --help`: the command line, `kb tui` and `kb mcp` use this app.';
  if (cmd.kind === 'link' && transient(cmd))
    return {
      installed: false,
      message: 'Move kb to Applications first',
      detail: `kb is running from ${cmd.app}, which will not stay there. Drag kb into Applications, open it from there, and choose Install the kb Command… again.`,
    };
  const now = found(cmd);
  if (now.state === 'ours' && now.current)
    return { installed: true, message: `The kb command is already installed: ${cmd.path}`, detail: use };
  if (now.state === 'foreign' && !(await host.confirmReplace(cmd.path, now.what)))
    return { installed: false, message: 'The kb command was not installed', detail: `${cmd.path} is left as it was.` };
  try {
    if (cmd.kind === 'link') {
      try {
        disk.link(cmd.target, cmd.path);
      } catch (e) {
        if (!denied(e)) throw e;
        await host.asAdmin(linkCommand(cmd));
      }
    } else disk.write(cmd.path, cmd.script);
  } catch (e) {
    return { installed: false, message: 'The kb command could not be installed', detail: `${cmd.path}: ${(e as Error).message}` };
  }
  const folder = dirname(cmd.path);
  const onPath = host.pathVariable.split(':').includes(folder);
  return {
    installed: true,
    message: `The kb command is installed: ${cmd.path}`,
    detail: onPath
      ? use
      : `${use} ${folder} is not on your PATH yet: most systems add it when you next log in now that it exists; otherwise add \`export PATH="${folder}:$PATH"\` to your shell's profile.`,
  };
}

const denied = (e: unknown): boolean => ['EACCES', 'EPERM', 'EROFS'].includes((e as NodeJS.ErrnoException).code ?? '');
