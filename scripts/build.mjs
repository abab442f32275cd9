// Bundles the CLI into dist/ with esbuild. Dependencies stay in node_modules (native modules,
// wasm grammars); dynamic imports become separate chunks so `kb search` never loads the parsers.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'src/cli/main.ts', 'parse-thread': 'src/worker/ingest/parse-thread.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  packages: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
});
