// The desktop app's build (electron-vite): main, the worker it supervises (with its threads), the
// sandboxed preload, and the same React renderer kb serve uses. → out/{main,preload,renderer}.
// Run: npm run build:app. Native dependencies stay external; they load only in the worker.
import { readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { pdfjsAssets } from './scripts/pdfjs-assets.mjs';

/** Files the worker starts by path, shipped beside it as they are (see worker/threads.ts assetPath). */
const workerAssets = (files: Record<string, string>): Plugin => ({
  name: 'kb-worker-assets',
  generateBundle() {
    for (const [fileName, src] of Object.entries(files)) this.emitFile({ type: 'asset', fileName, source: readFileSync(src) });
  },
});

export default defineConfig({
  main: {
    plugins: [workerAssets({ 'ocr-thread.cjs': 'src/worker/ingest/ocr/ocr-thread.cjs' })],
    build: {
      // smart-whisper is an optional native dependency: never bundled, loaded only in its child process.
      externalizeDeps: { include: ['smart-whisper'] },
      outDir: 'out/main',
      sourcemap: true,
      rollupOptions: {
        input: {
          index: 'src/main/index.ts',
          // The engine runs in a utilityProcess; its worker threads sit beside it (see worker/threads.ts).
          worker: 'src/worker/main.ts',
          'parse-thread': 'src/worker/ingest/parse-thread.ts',
          'embed-thread': 'src/worker/embed/embed-thread.ts',
          'tops-thread': 'src/worker/search/tops-thread.ts',
          'whisper-child': 'src/worker/audio/whisper-child.ts',
        },
        output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot load modules: one self-contained CommonJS file.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: 'src/preload/index.ts' },
        output: { format: 'cjs', entryFileNames: '[name].cjs', inlineDynamicImports: true },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    base: './',
    plugins: [react(), pdfjsAssets()],
    build: {
      outDir: 'out/renderer',
      sourcemap: true,
      chunkSizeWarningLimit: 2048,
      rollupOptions: { input: { index: 'src/renderer/index.html' } },
    },
  },
});
