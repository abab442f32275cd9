#!/usr/bin/env node
// Entry point for `kb`. Kept tiny: the real CLI is the bundle in dist/ (built by `npm install`).
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  process.stderr.write(`kb needs Node.js 22.13 or newer; this is ${process.version}.\n`);
  process.exit(1);
}
// V8's compiled code is cached on disk between runs (Node ≥ 22.1): a fresh `kb search` starts faster.
import('node:module')
  .then((m) => m.enableCompileCache?.())
  .catch(() => undefined)
  .then(() => import('../dist/cli.js'))
  .then((m) => m.main(process.argv.slice(2)))
  .then((code) => {
    process.exitCode = code;
  })
  .catch((e) => {
    if (e && e.code === 'ERR_MODULE_NOT_FOUND' && String(e.message).includes('dist/cli.js')) {
      process.stderr.write('kb is not built yet: run "npm install" (or "npm run build") in the kb folder.\n');
    } else {
      process.stderr.write(`kb: ${e && e.stack ? e.stack : e}\n`);
    }
    process.exitCode = 1;
  });
