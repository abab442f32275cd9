import type { Plugin } from 'vite';
export function pdfjsAssets(): Plugin;
