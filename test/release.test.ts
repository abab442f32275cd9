// What can be checked of the installers and their release here, where Electron cannot be downloaded:
// the scripts the installers run, written from kb's tables; the release workflow, linted by
// actionlint; and `npm run dist` saying in one paragraph why it cannot build here. (The package's
// contents: packaging.test.ts. The installers themselves: .github/workflows/release.yml.)
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { describe, expect, it } from 'vitest';
import { fileAssociations, PROG_ID, windowsExtensions } from '../packaging/file-associations.js';
import { packagingConfig, updateFeed } from '../packaging/config.js';
import { writeGenerated } from '../packaging/generated.js';
import { extensionsByType } from '../src/worker/ingest/extensions.js';
import { electronBinary } from '../tools/electron-tools.mjs';
import { repoRoot, tempDir } from './helpers.js';

describe("the installers' own steps", () => {
  it('offer every extension kb reads under "Open with", never as the default, and put the kb command on PATH', async () => {
    const dir = await tempDir();
    const s = writeGenerated(dir);
    const nsh = readFileSync(s.nsisInclude, 'utf8');
    const offered = [...extensionsByType()].filter(([t]) => t !== 'code').flatMap(([, e]) => e);
    expect(windowsExtensions().sort()).toEqual(offered.sort());
    for (const ext of ['md', 'pdf', 'docx', 'epub', 'eml', 'mp3'])
      expect(nsh).toContain(`WriteRegStr HKCU "Software\\Classes\\.${ext}\\OpenWithProgids" "${PROG_ID}" ""`);
    // Each one added is taken away again on uninstall; no extension's default handler is written.
    expect(nsh.match(/DeleteRegValue HKCU "Software\\Classes\\\.\w+\\OpenWithProgids"/g)).toHaveLength(offered.length);
    expect(nsh).not.toMatch(/Classes\\\.\w+" ""/);
    expect(nsh).toMatch(/WriteRegExpandStr HKCU "Environment" "Path" "\$0;\$INSTDIR\\resources\\bin"/);
    // macOS lists kb as an alternate viewer; Linux by MIME type.
    const assoc = fileAssociations();
    expect(assoc.every((a) => a.rank === 'Alternate' && a.role === 'Viewer' && a.mimeType)).toBe(true);
    expect(assoc.find((a) => a.ext.includes('pdf'))?.mimeType).toBe('application/pdf');
    // The .deb: electron-builder's own scripts, then /usr/bin/kb, removed only while it is ours.
    const install = readFileSync(s.afterInstall, 'utf8');
    expect(install).toContain("update-alternatives --install '/usr/bin/${executable}'");
    expect(install).toContain("ln -sf '/opt/${sanitizedProductName}/resources/bin/kb' '/usr/bin/kb'");
    expect(readFileSync(s.afterRemove, 'utf8')).toMatch(
      /if \[ "\$\(readlink \/usr\/bin\/kb\)" = '\/opt\/\$\{sanitizedProductName\}\/resources\/bin\/kb' \]; then\n\s+rm -f '\/usr\/bin\/kb'/,
    );
    // Where the window and the command line live, and where updates come from.
    const config = packagingConfig({ scripts: s, env: {} });
    expect(config.linux?.executableName).toBe('kb-desktop');
    expect(config.extraResources).toEqual([
      { from: 'packaging/cli', to: 'bin' },
      { from: 'README.md', to: 'README.md' },
    ]);
    expect(config.publish).toBeNull();
    expect(updateFeed({ GITHUB_REPOSITORY: 'someone/kb' })).toEqual({
      provider: 'github',
      owner: 'someone',
      repo: 'kb',
      releaseType: 'release',
    });
    expect(updateFeed({ KB_UPDATE_URL: 'https://updates.example.org/kb' })).toEqual({
      provider: 'generic',
      url: 'https://updates.example.org/kb',
    });
    // The mac zip is what electron-updater downloads there.
    expect(config.mac?.target).toEqual(['dmg', 'zip']);
  });
});

/** makensis (Debian's nsis package): on a user's clone its absence skips the check; under CI it fails it. */
const makensis = spawnSync('makensis', ['-VERSION'], { encoding: 'utf8' }).status === 0;
if (!makensis && !process.env.CI)
  console.warn("SKIPPED: compiling the Windows installer's steps — makensis is not installed (apt-get install nsis)");

describe.skipIf(!makensis && !process.env.CI)("the Windows installer's own steps", () => {
  it('compile with NSIS, warnings as errors, in an installer and its uninstaller', async () => {
    expect(makensis, 'makensis is not installed (apt-get install nsis)').toBe(true);
    const dir = await tempDir();
    const s = writeGenerated(dir);
    // What electron-builder's template defines, then our macros where it inserts them.
    writeFileSync(
      join(dir, 'check.nsi'),
      [
        '!define APP_EXECUTABLE_FILENAME "kb.exe"',
        'Name "kb"',
        `OutFile "${join(dir, 'check.exe')}"`,
        'RequestExecutionLevel user',
        'InstallDir "$LOCALAPPDATA\\Programs\\kb"',
        `!include "${s.nsisInclude}"`,
        'Section',
        '  !insertmacro customInstall',
        '  WriteUninstaller "$INSTDIR\\uninstall.exe"',
        'SectionEnd',
        'Section "Uninstall"',
        '  !insertmacro customUnInstall',
        'SectionEnd',
      ].join('\n'),
    );
    const r = spawnSync('makensis', ['-WX', '-V2', join(dir, 'check.nsi')], { encoding: 'utf8' });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });
});

describe('the kb command of an installed app', () => {
  it.skipIf(process.platform === 'win32')("runs the CLI with the app's own Electron as Node, found through the link on PATH", async () => {
    // An installed layout: the app's executable (here a stand-in that runs Node, as Electron does
    // under ELECTRON_RUN_AS_NODE), resources/bin/kb, and resources/app.asar (here this folder).
    const opt = await tempDir();
    const resources = join(opt, 'resources');
    mkdirSync(join(resources, 'bin'), { recursive: true });
    const executable = process.platform === 'darwin' ? join(opt, 'MacOS', 'kb') : join(opt, 'kb-desktop');
    mkdirSync(join(executable, '..'), { recursive: true });
    const started = join(opt, 'started-as-node');
    writeFileSync(executable, `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] && echo yes > '${started}'\nexec '${process.execPath}' "$@"\n`);
    chmodSync(executable, 0o755);
    copyFileSync(join(repoRoot, 'packaging/cli/kb'), join(resources, 'bin', 'kb'));
    chmodSync(join(resources, 'bin', 'kb'), 0o755);
    symlinkSync(repoRoot, join(resources, 'app.asar'));
    // /usr/bin/kb, as the .deb links it.
    const onPath = join(await tempDir(), 'kb');
    symlinkSync(join(resources, 'bin', 'kb'), onPath);
    const r = spawnSync(onPath, ['--version'], { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '' } });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(readFileSync(started, 'utf8').trim()).toBe('yes');
  });
});

describe('the release workflow', () => {
  it('passes actionlint, builds on Linux, macOS and Windows, tests the app, and says when it builds unsigned', async () => {
    const lint = await createLinter();
    const file = '.github/workflows/release.yml';
    const text = readFileSync(join(repoRoot, file), 'utf8');
    expect(lint(text, file)).toEqual([]);
    // The linter bites: a misspelt context is an error.
    expect(lint(text.replace('github.ref', 'github.reff'), file).map((e) => e.kind)).toContain('expression');
    expect(text).toMatch(/os: \[ubuntu-latest, macos-latest, windows-latest\]/);
    expect(text).toMatch(/xvfb-run -a npm test/);
    expect(text).toMatch(/npx vitest run e2e\/electron\.test\.ts test\/packaging\.test\.ts/);
    expect(text).toMatch(/npm run dist -- --publish/);
    expect(text).toMatch(/::notice title=Unsigned::/);
  });
});

describe('npm run dist', () => {
  const installed = electronBinary(repoRoot) !== null;
  if (installed) console.warn('SKIPPED: "npm run dist without an Electron download" — an Electron binary is installed here');

  it.skipIf(installed)(
    'where Electron cannot be downloaded: one paragraph naming the release workflow, exit 69, nothing built',
    async () => {
      const r = spawnSync('npm', ['run', 'dist', '--silent'], {
        cwd: repoRoot,
        env: { ...process.env, ELECTRON_MIRROR: 'http://127.0.0.1:1/', electron_config_cache: await tempDir() },
        encoding: 'utf8',
      });
      const out = `${r.stdout}${r.stderr}`;
      expect(r.status, out).toBe(69);
      const paragraph = out.split('\n').find((l) => l.startsWith("kb: the installers can't be built here"));
      expect(paragraph, out).toMatch(/downloading the Electron [\d.]+ binary from http:\/\/127\.0\.0\.1:1\/ failed/);
      expect(paragraph).toMatch(/\.github\/workflows\/release\.yml/);
      expect(paragraph).toMatch(/ELECTRON_MIRROR/);
      expect(out).not.toMatch(/\n\s+at /);
      expect(out).not.toMatch(/electron-vite|building/i);
    },
    120_000,
  );
});
