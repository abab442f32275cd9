// The web UI (src/renderer) → dist/renderer, served by `kb serve` and loaded by the desktop app.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react()],
  build: { outDir: '../../dist/renderer', emptyOutDir: true, sourcemap: true, chunkSizeWarningLimit: 2048 },
  logLevel: 'warn',
});
