// The desktop app's installers (electron-builder): what goes into the package and what is unpacked
// from its asar archive, the native modules rebuilt for Electron, what the app opens, the `kb`
// command beside it, and where updates come from. One config for `npm run dist` (scripts/dist.ts),
// the release workflow (.github/workflows/release.yml) and the packaging test.
import type { Configuration } from 'electron-builder';
import { fileAssociations } from './file-associations.js';
import type { GeneratedScripts } from './generated.js';

/**
 * The native modules the app loads, each rebuilt for Electron's ABI by electron-builder
 * (@electron/rebuild) on the machine that packs it. Node-API modules (all but better-sqlite3 and
 * smart-whisper) load in Electron as built, but are rebuilt or re-fetched for the target all the
 * same. The packaging test fails when a production dependency brings a native module not listed here.
 */
export const NATIVE_MODULES = ['better-sqlite3', '@lancedb/lancedb', 'onnxruntime-node', 'smart-whisper', '@napi-rs/canvas'] as const;

/**
 * What must sit outside app.asar as real files: native addons and the shared libraries they open by
 * path (onnxruntime's), which the operating system loads, not Electron's archive reader. Everything
 * else — the worker, its threads, pdf.js's wasm, fonts and cmaps, tesseract's language data, the
 * grammars and the JSON Schemas — is read from inside the archive.
 */
export const UNPACKED = ['**/*.node', 'node_modules/onnxruntime-node/bin/**', 'node_modules/@lancedb/**', 'node_modules/@napi-rs/**'];

/**
 * The built app — the Electron build (out/), the CLI's bundle and the web UI (dist/) — and what of the
 * production dependencies is left out, none of it loaded by kb: LanceDB's optional embedding functions
 * (Transformers.js with its own onnxruntime, onnxruntime-web and its protobufs, sharp with its libvips,
 * OpenAI's client); whisper.cpp's and SQLite's sources (their addons are built); pdf.js's builds other
 * than the legacy one Node runs (the web UI bundles its own), and its source maps; ExcelJS's browser
 * bundles. The packaging test runs the packaged worker through a day's work to prove nothing it needs is gone.
 */
export const APP_FILES = [
  'package.json',
  'bin/kb.js',
  'out/**/*',
  'dist/**/*',
  '!{dist,out}/**/*.map',
  '!node_modules/@huggingface/transformers{,/**}',
  '!node_modules/@huggingface/jinja{,/**}',
  '!node_modules/onnxruntime-web{,/**}',
  '!node_modules/protobufjs{,/**}',
  '!node_modules/long{,/**}',
  '!node_modules/sharp{,/**}',
  '!node_modules/@img{,/**}',
  '!node_modules/smart-whisper/whisper.cpp{,/**}',
  '!node_modules/openai{,/**}',
  '!node_modules/better-sqlite3/{deps,src}{,/**}',
  '!node_modules/pdfjs-dist/{build,web,image_decoders,types}{,/**}',
  '!node_modules/pdfjs-dist/**/*.map',
  '!node_modules/exceljs/dist{,/**}',
];

/**
 * The native libraries for the other platforms, left out of this platform's package (`npm run dist`
 * builds for the machine it runs on): onnxruntime's (about 90 MB each) and better-sqlite3's prebuilt
 * addons. (Here, not in electron-builder's per-platform `files`, which drops the top-level exclusions.)
 */
const otherPlatforms = (keep: NodeJS.Platform): string[] =>
  ['darwin', 'linux', 'win32']
    .filter((p) => p !== keep)
    .flatMap((p) => [`!node_modules/onnxruntime-node/bin/napi-v6/${p}{,/**}`, `!node_modules/better-sqlite3/prebuilds/${p}*`]);

/** Where the installed app asks for updates: KB_UPDATE_URL (a generic server), else the GitHub repository building it. */
export type UpdateFeed = { provider: 'generic'; url: string } | { provider: 'github'; owner: string; repo: string; releaseType: 'release' };

export function updateFeed(env: NodeJS.ProcessEnv = process.env): UpdateFeed | null {
  if (env.KB_UPDATE_URL) return { provider: 'generic', url: env.KB_UPDATE_URL };
  const [owner, repo] = (env.GITHUB_REPOSITORY ?? '').split('/');
  return owner && repo ? { provider: 'github', owner, repo, releaseType: 'release' } : null;
}

export interface PackagingOptions {
  env?: NodeJS.ProcessEnv;
  /** The scripts written from kb's tables and electron-builder's templates (generated.ts). */
  scripts: GeneratedScripts;
  /** The platform packed for: this machine's. */
  platform?: NodeJS.Platform;
}

export function packagingConfig(opts: PackagingOptions): Configuration {
  const env = opts.env ?? process.env;
  const feed = updateFeed(env);
  const associations = fileAssociations();
  return {
    appId: 'org.kb.app',
    productName: 'kb',
    copyright: 'MIT License',
    directories: { output: 'release', buildResources: 'packaging/build' },
    // Copies: electron-builder writes into the arrays it is given.
    files: [...APP_FILES, ...otherPlatforms(opts.platform ?? process.platform)],
    // The `kb` command (packaging/cli): resources/bin/kb and kb.cmd, run by the app's Electron as Node.
    // The README as a real file: the Help menu opens it in the system's Markdown viewer.
    extraResources: [
      { from: 'packaging/cli', to: 'bin' },
      { from: 'README.md', to: 'README.md' },
    ],
    asar: true,
    asarUnpack: [...UNPACKED],
    npmRebuild: true,
    icon: 'resources/icon.png',
    publish: feed ? [feed] : null,
    mac: {
      category: 'public.app-category.productivity',
      // Names without the version, so the latest release's installer is one stable link (README).
      artifactName: 'kb-mac-${arch}.${ext}',
      // The zip is what electron-updater downloads on macOS; the dmg is what a person opens.
      target: ['dmg', 'zip'],
      hardenedRuntime: true,
      entitlements: 'packaging/mac/entitlements.plist',
      entitlementsInherit: 'packaging/mac/entitlements.plist',
      fileAssociations: associations,
      // Signing and notarising read the repository's secrets (CSC_LINK, APPLE_ID, …); without them
      // the workflow builds unsigned and says so.
      notarize: Boolean(env.APPLE_ID && env.APPLE_APP_SPECIFIC_PASSWORD && env.APPLE_TEAM_ID),
    },
    dmg: { title: 'kb ${version}' },
    win: { target: ['nsis'] },
    nsis: {
      artifactName: 'kb-windows-${arch}-setup.${ext}',
      oneClick: false,
      perMachine: false,
      allowToChangeInstallationDirectory: true,
      include: opts.scripts.nsisInclude,
    },
    linux: {
      target: ['AppImage', 'deb'],
      // `kb` on PATH is the command line (packaging/cli/kb); the window is kb-desktop.
      executableName: 'kb-desktop',
      category: 'Office',
      synopsis: 'A local-first knowledge base',
      artifactName: 'kb-linux-${arch}.${ext}',
      fileAssociations: associations,
    },
    deb: {
      afterInstall: opts.scripts.afterInstall,
      afterRemove: opts.scripts.afterRemove,
      // ffmpeg decodes audio and video for transcription; kb says how to get it when it is missing.
      recommends: ['ffmpeg'],
    },
  };
}
