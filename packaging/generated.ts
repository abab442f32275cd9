// The installers' scripts that are written from kb's own tables and electron-builder's templates
// rather than kept by hand: the Windows installer's steps and the .deb's scripts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterInstall, afterRemove } from './linux/kb-command.js';
import { installerNsh } from './windows/installer-nsh.js';

export interface GeneratedScripts {
  nsisInclude: string;
  afterInstall: string;
  afterRemove: string;
}

/** Writes them into `dir` (release/.build for `npm run dist`); their paths, for packagingConfig. */
export function writeGenerated(dir: string): GeneratedScripts {
  mkdirSync(dir, { recursive: true });
  const out = {
    nsisInclude: join(dir, 'installer.nsh'),
    afterInstall: join(dir, 'after-install.sh'),
    afterRemove: join(dir, 'after-remove.sh'),
  };
  writeFileSync(out.nsisInclude, installerNsh());
  writeFileSync(out.afterInstall, afterInstall(), { mode: 0o755 });
  writeFileSync(out.afterRemove, afterRemove(), { mode: 0o755 });
  return out;
}
