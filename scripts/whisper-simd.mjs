// smart-whisper builds whisper.cpp with node-gyp's plain flags: on x86-64 that is SSE2 only, and ggml
// without AVX2/FMA/F16C transcribes ~25× slower (npm run bench -- audio: whisper base took 6× the
// recording's length on 2 cores; 0.2× with them). This rebuilds the addon once with them, from the
// root package's prepare step (after npm install). x86-64-v3 is every x86-64 CPU since 2013 (Haswell,
// Excavator); KB_WHISPER_CFLAGS overrides it (-march=native on a machine that keeps its own build,
// empty for an older CPU). On arm64 NEON is already on, macOS uses Accelerate, and MSVC reads no
// CFLAGS: Linux x64 only.
import { execFileSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let dir;
try {
  dir = dirname(require.resolve('smart-whisper/package.json'));
} catch {
  process.exit(0); // an optional dependency that did not install: kb says so when audio waits
}
const flags = process.env.KB_WHISPER_CFLAGS ?? (arch() === 'x64' && platform() === 'linux' ? '-march=x86-64-v3' : '');
const stamp = join(dir, 'build', 'kb-cflags.json');
const built = join(dir, 'build', 'Release', 'smart-whisper.node');
const want = JSON.stringify({ flags, node: process.versions.modules });
// No plain build to improve on (its own install failed: kb says so when audio waits), or done already.
if (!flags || !existsSync(built) || (existsSync(stamp) && readFileSync(stamp, 'utf8') === want)) process.exit(0);

// Built in a copy, so a failure leaves the working plain build where it is: whisper is optional, and
// a slower one beats none.
const gyp = require.resolve('node-gyp/bin/node-gyp.js');
const nodedir = process.env.npm_package_config_node_gyp_nodedir ?? process.env.npm_config_nodedir;
const copy = mkdtempSync(join(tmpdir(), 'kb-whisper-'));
process.stderr.write(`kb: building whisper.cpp with ${flags} (once, ~40 s)…\n`);
try {
  cpSync(dir, copy, { recursive: true, filter: (src) => src !== join(dir, 'build') });
  execFileSync(process.execPath, [gyp, 'rebuild', ...(nodedir ? [`--nodedir=${nodedir}`] : [])], {
    cwd: copy,
    stdio: 'pipe',
    env: { ...process.env, CFLAGS: `${process.env.CFLAGS ?? ''} ${flags}`, CXXFLAGS: `${process.env.CXXFLAGS ?? ''} ${flags}` },
  });
  copyFileSync(join(copy, 'build', 'Release', 'smart-whisper.node'), built);
  writeFileSync(stamp, want);
} catch (e) {
  const said = e && typeof e === 'object' && 'stderr' in e ? String(e.stderr).split('\n').slice(-5).join('\n') : String(e);
  process.stderr.write(
    `${said}\nkb: whisper.cpp did not build with ${flags}; the build it had stays. KB_WHISPER_CFLAGS sets other flags.\n`,
  );
} finally {
  rmSync(copy, { recursive: true, force: true });
}
