// `npm run app`: makes sure the Electron binary is here, builds the desktop app (electron-vite → out/)
// and starts it. Where Electron can't be downloaded or can't start, it prints one paragraph — what
// failed, the mirror setting for people behind proxies, and the browser UI, which is the same app —
// and exits with EXIT_UNAVAILABLE, never a stack trace.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { platform } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronBinary, electronViteBin } from '../tools/electron-tools.mjs';

/** sysexits' EX_UNAVAILABLE: the app could not be started here (documented in the README). */
const EXIT_UNAVAILABLE = 69;
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));

/** One paragraph, then exit: what failed, what to try, and the browser UI that needs no Electron. */
function unavailable(what, { download = false } = {}) {
  const mirror = !download
    ? ''
    : process.env.ELECTRON_MIRROR
      ? ` ELECTRON_MIRROR is set to ${process.env.ELECTRON_MIRROR}: check that it serves Electron's releases, then run \`npm run app\` again.`
      : " Behind a proxy or firewall, set ELECTRON_MIRROR to a mirror of Electron's releases (for example ELECTRON_MIRROR=https://npmmirror.com/mirrors/electron/) and run `npm run app` again.";
  process.stderr.write(
    `kb: the desktop app can't start here: ${what}.${mirror} The same UI runs in your browser: \`kb serve\` prints its address.\n`,
  );
  process.exit(EXIT_UNAVAILABLE);
}

// 1. The Electron binary. The electron package downloads it the first time it is asked for its path,
//    and throws a stack trace when that fails; run that download here, quietly, to say what happened.
let electronVersion;
try {
  electronVersion = require('electron/package.json').version;
} catch {
  unavailable('the electron package is not installed (was `npm install` run with --omit=dev?)');
}
let electron = electronBinary(root);
if (!electron) {
  process.stderr.write(`kb: downloading Electron ${electronVersion}, once (about 100 MB)…\n`);
  const got = spawnSync(process.execPath, [require.resolve('electron/install.js')], { encoding: 'utf8' });
  electron = electronBinary(root);
  if (got.status !== 0 || !electron) {
    // The first line of what failed, not its stack ("TypeError: fetch failed", "RequestError: …").
    const reason = `${got.stderr ?? ''}\n${got.stdout ?? ''}`
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l && !l.startsWith('at ') && !l.startsWith('Downloading'));
    const from = process.env.ELECTRON_MIRROR ?? 'github.com';
    unavailable(`downloading the Electron ${electronVersion} binary from ${from} failed (${reason ?? `exit code ${got.status}`})`, {
      download: true,
    });
  }
}

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
