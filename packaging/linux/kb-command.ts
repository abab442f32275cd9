// The .deb's scripts: electron-builder's own (which link /usr/bin/kb-desktop, set up the sandbox and
// the MIME database), then the `kb` command line linked as /usr/bin/kb (packaging/cli/kb) — and
// unlinked on removal, if it is still ours. `${…}` are electron-builder's template variables.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const KB_COMMAND = "'/opt/${sanitizedProductName}/resources/bin/kb'";

function template(name: string): string {
  const lib = dirname(createRequire(import.meta.url).resolve('app-builder-lib/package.json'));
  return readFileSync(join(lib, 'templates/linux', name), 'utf8');
}

export function afterInstall(): string {
  return `${template('after-install.tpl')}
# kb's command line beside the window (packaging/linux/kb-command.ts).
ln -sf ${KB_COMMAND} '/usr/bin/kb'
`;
}

export function afterRemove(): string {
  return `${template('after-remove.tpl')}
# kb's command line, if /usr/bin/kb is still the link this package made (packaging/linux/kb-command.ts).
if [ "$(readlink /usr/bin/kb)" = ${KB_COMMAND} ]; then
    rm -f '/usr/bin/kb'
fi
`;
}
