// Files handed to the app on its command line (a second launch, "Open with kb", a drop on the dock
// icon on Linux and Windows): the arguments that are not flags and not the app itself.
import { isAbsolute, resolve } from 'node:path';

export function pathsFromArgv(argv: readonly string[], cwd: string, exists: (p: string) => boolean): string[] {
  // argv[0] is the executable; in development argv[1] is the app's directory.
  const args = argv.slice(1).filter((a) => a && !a.startsWith('-'));
  return args
    .map((a) => (isAbsolute(a) ? a : resolve(cwd, a)))
    .filter((p) => exists(p) && !p.endsWith('.asar') && !/[\\/]out[\\/]main[\\/]?/.test(p) && p !== cwd);
}
