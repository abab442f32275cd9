// `npm run app`: builds the desktop app (electron-vite → out/) and starts it. Where the Electron binary
// could not be installed (ELECTRON_SKIP_BINARY_DOWNLOAD, an offline machine), it says so and points to
// the browser UI, which is the same app: `npx kb serve`.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const built = spawnSync(process.execPath, [require.resolve('electron-vite/bin/electron-vite.js'), 'build'], { stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);

let electron;
try {
  electron = require('electron'); // the path of the binary, or a throw when it was never downloaded
} catch (e) {
  console.error(`kb: the Electron binary is not installed here (${e.message.split('\n')[0]}).`);
  console.error('Install it with `npx install-electron` or reinstall without ELECTRON_SKIP_BINARY_DOWNLOAD,');
  console.error('or use the same UI in your browser: npx kb serve');
  process.exit(1);
}
const child = spawn(electron, ['.', ...process.argv.slice(2)], { stdio: 'inherit' });
child.on('exit', (code) => process.exit(code ?? 0));
