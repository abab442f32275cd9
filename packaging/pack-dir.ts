// The app packed for this platform as a directory (electron-builder --dir) around a stand-in Electron
// binary, which cannot be downloaded everywhere: what the packaging test looks inside and runs, and
// what `npm run bench -- package` weighs. The release workflow packs with the real one.
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packagingConfig } from './config.js';
import { writeGenerated } from './generated.js';

/** Packs the app (out/ and dist/ as built) from `projectDir` into `out`; the resources folder it wrote. */
export async function packDir(projectDir: string, out: string): Promise<string> {
  const electronVersion = (JSON.parse(readFileSync(join(projectDir, 'node_modules/electron/package.json'), 'utf8')) as { version: string })
    .version;
  const fake = mkdtempSync(join(tmpdir(), 'kb-electron-'));
  writeFileSync(join(fake, 'electron'), '#!/bin/sh\n');
  chmodSync(join(fake, 'electron'), 0o755);
  writeFileSync(join(fake, 'chrome-sandbox'), '');
  writeFileSync(join(fake, 'version'), electronVersion);
  const config = packagingConfig({ scripts: writeGenerated(join(out, '.build')), env: {} });
  const { build, Platform } = await import('electron-builder');
  await build({
    projectDir,
    publish: 'never',
    targets: Platform.current().createTarget('dir'),
    config: {
      ...config,
      electronDist: fake,
      electronVersion,
      // Rebuilding for Electron needs its headers from the network; the release workflow does it.
      npmRebuild: false,
      directories: { ...config.directories, output: out },
    },
  });
  return join(out, `${process.platform === 'win32' ? 'win' : process.platform}-unpacked`, 'resources');
}
