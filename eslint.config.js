// Lint, including the import boundaries of design.md ("who may import what"), as VS Code and Signal do.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const otherProcesses = (...names) => names.map((n) => `**/${n}/**`);

/** One rule per process folder: what it must not import. */
const boundary = (files, group, message) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns: [{ group, message }] }] },
});

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.tools/**', '.bench/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', performance: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-control-regex': 'off',
    },
  },
  {
    // Plain CommonJS shipped as is (a worker thread tesseract.js starts by path).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  boundary(
    ['src/shared/**'],
    [...otherProcesses('worker', 'cli', 'main', 'preload', 'renderer'), 'node:*', 'better-sqlite3', '@lancedb/*', 'onnxruntime-*', 'electron'],
    'src/shared holds pure contracts: no Node, no native modules, nothing from another process folder (design.md).',
  ),
  boundary(
    ['src/worker/**'],
    otherProcesses('cli', 'main', 'preload', 'renderer').concat('electron'),
    'the worker may import only src/shared (design.md).',
  ),
  boundary(
    ['src/cli/**'],
    [...otherProcesses('main', 'preload', 'renderer'), '**/worker/**', '!**/worker/index.js', 'electron'],
    'the CLI may import src/shared and the engine facade (src/worker/index.ts) only (design.md).',
  ),
  boundary(
    ['src/main/**', 'src/preload/**'],
    [...otherProcesses('worker', 'cli', 'renderer'), 'better-sqlite3', '@lancedb/*', 'onnxruntime-*'],
    'main and preload talk to the worker over IPC and import only src/shared; native modules never load here (design.md).',
  ),
  boundary(
    ['src/renderer/**'],
    [...otherProcesses('worker', 'cli', 'main', 'preload'), 'node:*', 'electron'],
    'the renderer imports only types from src/shared (design.md).',
  ),
  {
    // Types only: the contract's shapes, never its runtime (zod stays out of the UI bundle).
    files: ['src/renderer/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/shared/**'], allowTypeImports: true, message: 'the renderer imports only types from src/shared (design.md).' }] },
      ],
    },
  },
);
