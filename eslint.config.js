// Lint, including the import boundaries of docs/design.md ("who may import what"), as VS Code and Signal do.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import { workerLayers } from './lint/worker-layers.js';

const otherProcesses = (...names) => names.map((n) => `**/${n}/**`);
/** The same folders as a regular expression over an import specifier, for dynamic import() and require(). */
// (esquery's regular expressions end at the first slash, so a slash is written \x2F.)
const folderRe = (...names) => `(^|\\x2F)(${names.join('|')})\\x2F`;
const WHY = 'see "Processes and folders" in docs/architecture.md';

/**
 * One rule set per process folder: what it must not import. Static imports go through
 * no-restricted-imports (gitignore-style patterns); import() and require() are not seen by that rule,
 * so the same boundary is written again as regular expressions over their specifiers, and a specifier
 * that is not a string literal cannot be checked, so it is not allowed.
 */
const boundary = (files, { group, dynamic }, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: [{ group, message: `${message} (${WHY})` }] }],
    'no-restricted-syntax': [
      'error',
      ...dynamic.flatMap((re) => [
        { selector: `ImportExpression[source.value=/${re}/]`, message: `${message} — import() too (${WHY})` },
        { selector: `CallExpression[callee.name='require'][arguments.0.value=/${re}/]`, message: `${message} — require() too (${WHY})` },
      ]),
      {
        selector: 'ImportExpression[source.type!="Literal"]',
        message: `import() takes a string literal here, so the import boundaries can check it (${WHY})`,
      },
    ],
  },
});

/** Node's globals, which src/shared (pure contracts) and the renderer (a web page) must not use. */
const nodeGlobals = (where) => ({
  'no-restricted-globals': [
    'error',
    ...['process', 'Buffer', 'require', 'module', '__dirname', '__filename', 'global', 'setImmediate', 'clearImmediate'].map((name) => ({
      name,
      message: `${where} does not run in Node: no ${name} (${WHY})`,
    })),
  ],
});

/**
 * Inside the engine: the environment is read once, where it is folded into the config (config/env.ts);
 * SQL is prepared only in store/ (its statements, its row types). One rule key, so each folder gets
 * the restrictions that apply to it.
 */
function workerProperties() {
  const env = {
    object: 'process',
    property: 'env',
    message: `the engine reads its settings from the config; a variable is folded in by src/worker/config/env.ts (${WHY})`,
  };
  const sql = { property: 'prepare', message: `SQL lives in src/worker/store/: ask a store module (${WHY})` };
  const rule = (...restrictions) => ({ 'no-restricted-properties': ['error', ...restrictions] });
  return [
    { files: ['src/worker/**/*.ts'], ignores: ['src/worker/config/**', 'src/worker/store/**'], rules: rule(env, sql) },
    { files: ['src/worker/store/**/*.ts'], rules: rule(env) },
    { files: ['src/worker/config/**/*.ts'], rules: rule(sql) },
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'release/**', 'node_modules/**', '.tools/**', '.bench/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
      },
    },
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
    {
      group: [
        ...otherProcesses('worker', 'cli', 'main', 'preload', 'renderer'),
        'node:*',
        'better-sqlite3',
        '@lancedb/*',
        'onnxruntime-*',
        'electron',
      ],
      dynamic: [
        folderRe('worker', 'cli', 'main', 'preload', 'renderer'),
        '^node:',
        '^(better-sqlite3|@lancedb\\x2F|onnxruntime-|electron$)',
      ],
    },
    'src/shared holds pure contracts: no Node, no native modules, nothing from another process folder',
  ),
  { files: ['src/shared/**'], rules: nodeGlobals('src/shared') },
  boundary(
    ['src/worker/**'],
    {
      group: otherProcesses('cli', 'main', 'preload', 'renderer').concat('electron'),
      dynamic: [folderRe('cli', 'main', 'preload', 'renderer'), '^electron$'],
    },
    'the worker may import only src/shared',
  ),
  boundary(
    ['src/cli/**'],
    {
      group: [...otherProcesses('main', 'preload', 'renderer'), '**/worker/**', '!**/worker/index.js', 'electron'],
      dynamic: [folderRe('main', 'preload', 'renderer'), '(^|\\x2F)worker\\x2F(?!index\\.js$)', '^electron$'],
    },
    'the CLI may import src/shared and the engine facade (src/worker/index.ts) only',
  ),
  boundary(
    ['src/main/**', 'src/preload/**'],
    {
      group: [...otherProcesses('worker', 'cli', 'renderer'), 'better-sqlite3', '@lancedb/*', 'onnxruntime-*'],
      dynamic: [folderRe('worker', 'cli', 'renderer'), '^(better-sqlite3|@lancedb\\x2F|onnxruntime-)'],
    },
    'main and preload talk to the worker over IPC and import only src/shared; native modules never load here',
  ),
  boundary(
    ['src/renderer/**'],
    {
      group: [...otherProcesses('worker', 'cli', 'main', 'preload'), 'node:*', 'electron'],
      // At run time the renderer loads nothing from src/shared either: its imports from there are types.
      dynamic: [folderRe('worker', 'cli', 'main', 'preload', 'shared'), '^node:', '^electron$'],
    },
    'the renderer imports only types from src/shared',
  ),
  { files: ['src/renderer/**'], rules: nodeGlobals('the renderer') },
  {
    // React's rules of hooks and the compiler-era checks, for every component: the app's and kb tui's.
    files: ['src/renderer/**/*.{ts,tsx}', 'src/cli/tui/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
    rules: { ...reactHooks.configs.flat['recommended-latest'].rules, 'react-hooks/exhaustive-deps': 'error' },
  },
  {
    // The engine's layers: imports run down only (lint/worker-layers.js holds the table).
    files: ['src/worker/**/*.ts'],
    plugins: { kb: { rules: { 'worker-layers': workerLayers } } },
    rules: { 'kb/worker-layers': 'error' },
  },
  ...workerProperties(),
  {
    // Types only: the contract's shapes, never its runtime (zod stays out of the UI bundle).
    files: ['src/renderer/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        // …but for the RPC client, which the preload bundles too, the table of document types, the search's limits,
        // which hits meaning alone found and sizes for people: plain TypeScript, no zod.
        {
          patterns: [
            {
              group: [
                '**/shared/**',
                '!**/shared/rpc-client',
                '!**/shared/rpc-client.js',
                '!**/shared/doc-types',
                '!**/shared/doc-types.js',
                '!**/shared/search-limits',
                '!**/shared/search-limits.js',
                '!**/shared/by-meaning',
                '!**/shared/by-meaning.js',
                '!**/shared/bytes',
                '!**/shared/bytes.js',
              ],
              allowTypeImports: true,
              message: `the renderer imports only types from src/shared (${WHY})`,
            },
          ],
        },
      ],
    },
  },
);
