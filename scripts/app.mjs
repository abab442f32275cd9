// `npm run app`: makes sure the Electron binary is here, builds the desktop app (electron-vite → out/)
// and starts it. Where Electron can't be downloaded or can't start, it prints one paragraph — what
// failed, the mirror setting for people behind proxies, and the browser UI, which is the same app —
// and exits with EXIT_UNAVAILABLE, never a stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronViteBin, fetchElectron, mirrorAdvice } from '../tools/electron-tools.mjs';

/** sysexits' EX_UNAVAILABLE: the app could not be started here (documented in the README). */
const EXIT_UNAVAILABLE = 69;
const root = dirname(dirname(fileURLToPath(import.meta.url)));

/** One paragraph, then exit: what failed, what to try, and the browser UI that needs no Electron. */
function unavailable(what, { download = false } = {}) {
  const mirror = download ? mirrorAdvice('npm run app') : '';
  process.stderr.write(
    `kb: the desktop app can't start here: ${what}.${mirror} The same UI runs in your browser: \`kb serve\` prints its address.\n`,
  );
  process.exit(EXIT_UNAVAILABLE);
}

// 1. The Electron binary. The electron package downloads it the first time it is asked for its path,
//    and throws a stack trace when that fails; that download is run here, quietly, to say what happened.
const fetched = fetchElectron(root);
if (!('binary' in fetched)) unavailable(fetched.reason, { download: fetched.download });
const electron = fetched.binary;

// 2. Somewhere to show a window.
if (platform() === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
  unavailable('there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set, as over SSH or in a container)');
}

// 3. The build.
const built = spawnSync(process.execPath, [electronViteBin(root), 'build'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
if (!existsSync(join(root, 'out/main/index.js'))) unavailable('the build left no out/main/index.js');

// 4. The app. Chromium refuses to run as root with its OS sandbox, so as root it runs without it (the
//    windows are still context-isolated, with no Node access: see src/main/security.ts).
const args = ['.', ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), ...process.argv.slice(2)];
const started = Date.now();
const child = spawn(electron, args, { cwd: root, stdio: 'inherit' });
child.on('error', (e) => unavailable(`Electron could not be started (${e.message})`));
child.on('exit', (code, signal) => {
  // Missing system libraries or a broken GPU stack end Electron within seconds; later exits are the app's own.
  const stoppedByUser = signal === 'SIGINT' || signal === 'SIGTERM';
  if ((code !== 0 || signal) && !stoppedByUser && Date.now() - started < 10_000) {
    unavailable(`Electron stopped as it started (${signal ?? `exit code ${code}`}; its own message is above)`);
  }
  process.exit(code ?? 1);
});
