// Bundles the CLI into dist/ with esbuild. Dependencies stay in node_modules (native modules,
// wasm grammars); dynamic imports become separate chunks so `kb search` never loads the parsers.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

// Pure-JS dependencies made of many small modules load faster bundled (zod alone takes ~50 ms to
// import as separate files); everything else, native or not, stays in node_modules.
// Ink (kb tui) and React with it: ~40 packages of small modules, 300 ms to import unbundled.
const BUNDLED = ['zod', 'stopword', 'ink', 'react'];
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const deps = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];

// Chunk names carry content hashes: start clean so old ones do not pile up.
rmSync('dist', { recursive: true, force: true });

await build({
  entryPoints: {
    cli: 'src/cli/main.ts',
    'parse-thread': 'src/worker/ingest/parse-thread.ts',
    'embed-thread': 'src/worker/embed/embed-thread.ts',
    'tops-thread': 'src/worker/search/tops-thread.ts',
    worker: 'src/worker/main.ts',
    'whisper-child': 'src/worker/audio/whisper-child.ts',
  },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  // react-devtools-core: Ink imports it only when DEV=true, and it is not installed.
  external: [...deps.filter((d) => !BUNDLED.includes(d)), 'react-devtools-core'],
  sourcemap: 'linked',
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  jsx: 'automatic',
  // React (kb tui) chooses its build by NODE_ENV when it runs; a user's shell has none, which would
  // mean the development build: several times slower a render, and its warnings on the terminal.
  define: { 'process.env.NODE_ENV': '"production"' },
  // Bundled CommonJS (Ink's signal-exit, stack-utils) requires Node's built-ins: give ESM a require.
  banner: { js: "import { createRequire as __kbCreateRequire } from 'node:module'; const require = __kbCreateRequire(import.meta.url);" },
});

// Shipped as is beside the bundle: tesseract.js starts its worker thread from a file path.
copyFileSync('src/worker/ingest/ocr/ocr-thread.cjs', 'dist/ocr-thread.cjs');

// The web UI (React, Vite) → dist/renderer. Vite is a dev dependency: an install without it still
// gets a working CLI, and kb serve says the UI is not built.
try {
  const { build: viteBuild } = await import('vite');
  // React picks its production build from NODE_ENV; a build started from a bare shell has none.
  process.env.NODE_ENV = 'production';
  await viteBuild({ configFile: 'vite.renderer.config.ts', mode: 'production' });
} catch (e) {
  if (e?.code === 'ERR_MODULE_NOT_FOUND') console.warn('vite is not installed: the web UI was not built');
  else throw e;
}
