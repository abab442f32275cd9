// Where the Electron binary and the electron-vite command are, found without side effects: the
// electron package downloads its binary the first time it is required, and electron-vite exports no
// path to its command; and the binary fetched once, with what failed in words when it can't be.
// Shared by `npm run app`, `npm run dist` and the tests that build or launch the app.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The Electron executable if it has been downloaded (as the electron package finds it), else null. */
export function electronBinary(root) {
  const require = createRequire(join(root, 'package.json'));
  let pkg;
  try {
    pkg = dirname(require.resolve('electron/package.json'));
  } catch {
    return null;
  }
  const pathFile = join(pkg, 'path.txt');
  const rel = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  // ELECTRON_OVERRIDE_DIST_PATH: Electron's own setting for a binary kept elsewhere (a distro's, a CI cache).
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const bin = override ? join(override, rel ?? 'electron') : rel ? join(pkg, 'dist', rel) : null;
  return bin && existsSync(bin) ? bin : null;
}

/** The electron-vite command's script, read from its package.json's "bin" (its exports hide the path). */
export function electronViteBin(root) {
  const require = createRequire(join(root, 'package.json'));
  const manifest = require.resolve('electron-vite/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
  return join(dirname(manifest), typeof bin === 'string' ? bin : bin['electron-vite']);
}

/**
 * The Electron binary, downloaded first if it is not here (the electron package's own install step,
 * run quietly): `{ binary }`, or `{ reason }` — what failed, in one line, never a stack trace — with
 * `download` set when it was the download that failed (a mirror may help).
 */
export function fetchElectron(root) {
  const require = createRequire(join(root, 'package.json'));
  let version;
  try {
    version = require('electron/package.json').version;
  } catch {
    return { reason: 'the electron package is not installed (was `npm install` run with --omit=dev?)', download: false };
  }
  const here = electronBinary(root);
  if (here) return { binary: here, version };
  process.stderr.write(`kb: downloading Electron ${version}, once (about 100 MB)…\n`);
  const got = spawnSync(process.execPath, [require.resolve('electron/install.js')], { encoding: 'utf8' });
  const binary = electronBinary(root);
  if (got.status === 0 && binary) return { binary, version };
  // The first line of what failed, not its stack ("TypeError: fetch failed", "RequestError: …").
  const line = `${got.stderr ?? ''}\n${got.stdout ?? ''}`
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l && !l.startsWith('at ') && !l.startsWith('Downloading'));
  const from = process.env.ELECTRON_MIRROR ?? 'github.com';
  return {
    reason: `downloading the Electron ${version} binary from ${from} failed (${line ?? `exit code ${got.status}`})`,
    download: true,
  };
}

/** What to try when Electron's download failed: a mirror, or checking the one set. */
export function mirrorAdvice(command) {
  return process.env.ELECTRON_MIRROR
    ? ` ELECTRON_MIRROR is set to ${process.env.ELECTRON_MIRROR}: check that it serves Electron's releases, then run \`${command}\` again.`
    : ` Behind a proxy or firewall, set ELECTRON_MIRROR to a mirror of Electron's releases (for example ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/) and run \`${command}\` again.`;
}
