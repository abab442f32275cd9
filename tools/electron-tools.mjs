// Where the Electron binary and the electron-vite command are, found without side effects: the
// electron package downloads its binary the first time it is required, and electron-vite exports no
// path to its command. Shared by `npm run app` and the tests that build or launch the app.
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
