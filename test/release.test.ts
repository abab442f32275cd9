// What can be checked of the installers and their release here, where Electron cannot be downloaded:
// the scripts the installers run, written from kb's tables; the release workflow, linted by
// actionlint; and `npm run dist` saying in one paragraph why it cannot build here. (The package's
// contents: packaging.test.ts. The installers themselves: .github/workflows/release.yml.)
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createLinter } from 'actionlint';
import { assert, describe, expect, it } from 'vitest';
import { fileAssociations, PROG_ID, windowsExtensions } from '../packaging/file-associations.js';
import { packagingConfig, updateFeed } from '../packaging/config.js';
import { writeGenerated } from '../packaging/generated.js';
import { adminScript, type CommandDisk, type CommandHost, installKbCommand, kbCommandFor, realDisk } from '../src/main/kb-command.js';
import { appMenuTemplate, type MenuItemTemplate } from '../src/main/menu.js';
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

/**
 * An installed layout: the app's executable (here a stand-in that runs Node, as Electron does under
 * ELECTRON_RUN_AS_NODE, and notes that it did), resources/bin/kb, and resources/app.asar (here this folder).
 */
async function installedLayout(executableName: string): Promise<{ root: string; kb: string; startedAsNode: () => boolean }> {
  const root = await tempDir();
  const resources = join(root, 'resources');
  mkdirSync(join(resources, 'bin'), { recursive: true });
  const executable = join(root, executableName);
  mkdirSync(join(executable, '..'), { recursive: true });
  const started = join(root, 'started-as-node');
  writeFileSync(executable, `#!/bin/sh\n[ "$ELECTRON_RUN_AS_NODE" = 1 ] && echo yes > '${started}'\nexec '${process.execPath}' "$@"\n`);
  chmodSync(executable, 0o755);
  copyFileSync(join(repoRoot, 'packaging/cli/kb'), join(resources, 'bin', 'kb'));
  chmodSync(join(resources, 'bin', 'kb'), 0o755);
  symlinkSync(repoRoot, join(resources, 'app.asar'));
  return {
    root,
    kb: join(resources, 'bin', 'kb'),
    startedAsNode: () => existsSync(started) && readFileSync(started, 'utf8').trim() === 'yes',
  };
}

const run = (kb: string, args: string[]): SpawnSyncReturns<string> =>
  spawnSync(kb, args, { encoding: 'utf8', env: { ...process.env, ELECTRON_RUN_AS_NODE: '' }, timeout: 60_000 });

/** An answer of the person's, and what they were asked. */
function host(
  replace: boolean,
  admin: (command: string) => void = () => assert.fail('no administrator was needed'),
): CommandHost & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    asAdmin: async (command) => admin(command),
    confirmReplace: async (path, what) => (asked.push(`${path}: ${what}`), replace),
    pathVariable: '/usr/bin:/bin',
  };
}

describe.skipIf(process.platform === 'win32')('the kb command of an installed app', () => {
  it("runs the CLI with the app's own Electron as Node, found through the link on PATH", async () => {
    const app = await installedLayout(process.platform === 'darwin' ? 'MacOS/kb' : 'kb-desktop');
    // /usr/bin/kb, as the .deb links it.
    const onPath = join(await tempDir(), 'kb');
    symlinkSync(app.kb, onPath);
    const r = run(onPath, ['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(app.startedAsNode()).toBe(true);
  });

  it('is placed where no installer could: /usr/local/bin/kb on macOS (asking for an administrator), ~/.local/bin/kb for an AppImage', () => {
    const resourcesPath = '/Applications/kb.app/Contents/Resources';
    expect(kbCommandFor({ platform: 'darwin', resourcesPath, appImage: undefined, home: '/Users/me' })).toEqual({
      kind: 'link',
      path: '/usr/local/bin/kb',
      target: '/Applications/kb.app/Contents/Resources/bin/kb',
      app: '/Applications/kb.app',
    });
    expect(
      kbCommandFor({ platform: 'linux', resourcesPath: '/tmp/.mount_kb/resources', appImage: '/home/me/kb.AppImage', home: '/home/me' }),
    ).toMatchObject({
      kind: 'script',
      path: '/home/me/.local/bin/kb',
    });
    // The .deb and the Windows installer place it themselves: no menu item.
    expect(kbCommandFor({ platform: 'linux', resourcesPath: '/opt/kb/resources', appImage: undefined, home: '/home/me' })).toBeNull();
    expect(kbCommandFor({ platform: 'win32', resourcesPath: 'C:\\kb\\resources', appImage: undefined, home: 'C:\\Users\\me' })).toBeNull();
    const flat = (items: MenuItemTemplate[]): MenuItemTemplate[] => items.flatMap((i) => [i, ...flat(i.submenu ?? [])]);
    const actions = { addFiles: () => {}, addFolder: () => {}, preferences: () => {}, toggleAsk: () => {}, help: () => {} };
    let clicked = 0;
    for (const platform of ['darwin', 'linux']) {
      expect(flat(appMenuTemplate(actions, platform)).find((i) => i.id === 'install-command')).toBeUndefined();
      flat(appMenuTemplate({ ...actions, installCommand: () => clicked++ }, platform)).find((i) => i.label === 'Install the kb Command…')!
        .click!();
    }
    expect(clicked).toBe(2);
  });

  it("macOS: links the app's kb, through an administrator when the folder is not the person's, and replaces another kb only when told", async () => {
    const app = await installedLayout('kb-desktop');
    const bin = join(await tempDir(), "usr local's bin");
    const cmd = { kind: 'link' as const, path: join(bin, 'kb'), target: app.kb, app: app.root };
    // As macOS refuses /usr/local/bin to a non-administrator (the test runs as root, who is never refused).
    const refusing: CommandDisk = {
      link: () => {
        throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
      },
      write: realDisk.write,
    };
    const admin: string[] = [];
    const first = await installKbCommand(
      cmd,
      host(false, (command) => {
        admin.push(command);
        // What osascript's administrator runs.
        expect(spawnSync('sh', ['-c', command]).status).toBe(0);
      }),
      refusing,
    );
    expect(first).toMatchObject({ installed: true, message: `The kb command is installed: ${cmd.path}` });
    expect(first.detail).toMatch(/is not on your PATH yet/);
    expect(admin).toHaveLength(1);
    expect(adminScript("ln -s 'a\"b' c")).toBe('do shell script "ln -s \'a\\"b\' c" with administrator privileges');
    expect(readlinkSync(cmd.path)).toBe(app.kb);
    const r = run(cmd.path, ['--version']);
    expect(r.status, r.stderr).toBe(0);
    expect(app.startedAsNode()).toBe(true);
    expect(await installKbCommand(cmd, host(false), refusing)).toMatchObject({
      installed: true,
      message: `The kb command is already installed: ${cmd.path}`,
    });

    // Another program called kb: kept unless the person says replace.
    rmSync(cmd.path);
    writeFileSync(cmd.path, '#!/bin/sh\necho "the other kb"\n', { mode: 0o755 });
    const keep = host(false);
    expect(await installKbCommand(cmd, keep)).toMatchObject({ installed: false, detail: `${cmd.path} is left as it was.` });
    expect(keep.asked).toEqual([`${cmd.path}: a program that is not kb’s`]);
    expect(readFileSync(cmd.path, 'utf8')).toContain('the other kb');
    expect(await installKbCommand(cmd, host(true))).toMatchObject({ installed: true });
    expect(readlinkSync(cmd.path)).toBe(app.kb);
    expect(readdirSync(bin)).toEqual(['kb']);

    // An app still on its disk image: the link would break when it is ejected.
    const mounted = { ...cmd, path: join(bin, 'kb2'), app: '/Volumes/kb 1.0/kb.app' };
    expect(await installKbCommand(mounted, host(true))).toMatchObject({ installed: false, message: 'Move kb to Applications first' });
    expect(existsSync(mounted.path)).toBe(false);
  });

  it('AppImage: a script mounts the AppImage for each run, runs its kb, passes the exit status on and unmounts', async () => {
    const app = await installedLayout('kb-desktop');
    // The AppImage runtime's --appimage-mount: prints where it mounted, and stays until killed.
    const images = await tempDir();
    const appImage = join(images, "kb's.AppImage");
    const pids = join(images, 'mounts');
    writeFileSync(
      appImage,
      `#!/bin/sh\n[ "$1" = --appimage-mount ] || exit 2\necho $$ >> '${pids}'\necho '${app.root}'\nexec sleep 600\n`,
      { mode: 0o755 },
    );
    const home = await tempDir();
    const cmd = kbCommandFor({ platform: 'linux', resourcesPath: '/tmp/.mount_x/resources', appImage, home })!;
    const outcome = await installKbCommand(cmd, { ...host(false), pathVariable: `/usr/bin:${home}/.local/bin` });
    expect(outcome).toMatchObject({ installed: true, message: `The kb command is installed: ${home}/.local/bin/kb` });
    expect(outcome.detail).not.toMatch(/PATH/);
    expect(statSync(cmd.path).mode & 0o777).toBe(0o755);

    const ok = run(cmd.path, ['--version']);
    expect(ok.status, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/\d+\.\d+\.\d+/);
    expect(app.startedAsNode()).toBe(true);
    const failed = run(cmd.path, ['search']);
    expect(failed.status).not.toBe(0);
    expect(failed.status).not.toBe(127);
    // Each run mounted once, and unmounted when done.
    const mounts = readFileSync(pids, 'utf8').trim().split('\n').map(Number);
    expect(mounts).toHaveLength(2);
    for (const pid of mounts) expect(() => process.kill(pid, 0)).toThrow();

    // Installing again changes nothing; a newer AppImage elsewhere takes the script over without asking.
    expect((await installKbCommand(cmd, host(false))).message).toMatch(/already installed/);
    const moved = kbCommandFor({
      platform: 'linux',
      resourcesPath: '/tmp/.mount_y/resources',
      appImage: join(images, 'gone.AppImage'),
      home,
    })!;
    expect(await installKbCommand(moved, host(false))).toMatchObject({ installed: true });
    const gone = run(cmd.path, ['--version']);
    expect(gone.status).toBe(127);
    expect(gone.stderr).toMatch(/gone\.AppImage is gone: start the kb app you use now and choose Install the kb Command… again/);
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
