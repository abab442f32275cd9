// `npm run dist`: the desktop app's installer for this machine (electron-builder with
// packaging/config.ts) → release/: a .dmg and .zip on macOS, an NSIS .exe on Windows, an AppImage and
// a .deb on Linux. It builds the app first (electron-vite → out/; the CLI and web UI → dist/) and
// packs the Electron the electron package downloaded, as `npm run app` uses. Where Electron can't be
// downloaded it prints one paragraph and exits 69 (EX_UNAVAILABLE): the release workflow
// (.github/workflows/release.yml) builds the installers on GitHub's runners.
//   npm run dist -- --dir              an unpacked app (release/<platform>-unpacked), no installer
//   npm run dist -- --publish always   also uploads to the update feed (packaging/config.ts updateFeed)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronViteBin, fetchElectron, mirrorAdvice } from '../tools/electron-tools.mjs';
import { packagingConfig } from '../packaging/config.js';
import { writeGenerated } from '../packaging/generated.js';

const EXIT_UNAVAILABLE = 69;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);

function unavailable(what: string, download: boolean): never {
  process.stderr.write(
    `kb: the installers can't be built here: ${what}.${download ? mirrorAdvice('npm run dist') : ''} They are built for every platform by the release workflow (.github/workflows/release.yml) on GitHub's runners when a version tag is pushed; \`npm run app\` runs the app from this folder, and \`kb serve\` the same UI in a browser.\n`,
  );
  process.exit(EXIT_UNAVAILABLE);
}

// 1. Electron, before any building: the package holds the binary that electron-builder packs.
const fetched = fetchElectron(root);
if (!('binary' in fetched)) unavailable(fetched.reason, fetched.download);

// 2. The app and the CLI, built from this source.
const run = (script: string, scriptArgs: string[] = []): void => {
  const r = spawnSync(process.execPath, [script, ...scriptArgs], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(join(root, 'scripts/build.mjs'));
run(electronViteBin(root), ['build']);

// 3. The installers' scripts, written from kb's tables and electron-builder's templates.
const scripts = writeGenerated(join(root, 'release/.build'));

// 4. The installer for this machine.
const publish = args.includes('--publish') ? (args[args.indexOf('--publish') + 1] ?? 'always') : 'never';
const { build } = await import('electron-builder');
const config = packagingConfig({ scripts });
const electronDist = dirname(fetched.binary).replace(/\/Electron\.app\/Contents\/MacOS$/, '');
await build({
  projectDir: root,
  publish: publish === 'always' || publish === 'onTag' || publish === 'onTagOrDraft' ? publish : 'never',
  dir: args.includes('--dir'),
  config: { ...config, electronDist, electronVersion: fetched.version },
});
