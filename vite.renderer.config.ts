// The web UI (src/renderer) → dist/renderer, served by `kb serve` and loaded by the desktop app.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { pdfjsAssets } from './scripts/pdfjs-assets.mjs';

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react(), pdfjsAssets()],
  build: { outDir: '../../dist/renderer', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2048 },
  logLevel: 'warn',
});
