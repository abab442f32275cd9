// kb tui in a real terminal: tmux runs it on a small index, keys go in with send-keys and the screen
// comes back with capture-pane. Enter opens "vim" — a script of the test's that records its
// arguments — at the cited line. Skipped, saying so, where tmux is not installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, repoRoot, tempDir, writeTree } from '../test/helpers.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
if (!hasTmux) console.warn('SKIPPED: kb tui end-to-end test — no tmux here (apt-get install tmux)');
const SESSION = `kbtui${process.pid}`;
const tmux = (...args: string[]): string => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = (): string => tmux('capture-pane', '-t', SESSION, '-p');

let dir: string;

beforeAll(async () => {
  if (!hasTmux) return;
  dir = await tempDir();
  await writeTree(dir, {
    'notes/field.md': '# Field notes\n\n## Monday\n\nThe tide came in.\n\n## Tuesday\n\nThe walrus hauled out on the ice floe at dawn.\n',
    'notes/birds.txt': 'A heron stood in the reeds.\n',
  });
  expect(kb(['ingest', join(dir, 'notes')], { env: { KB_DATA_DIR: join(dir, 'data'), KB_CONFIG: join(dir, 'none.yaml') } }).code).toBe(0);
  // An "editor" named vim, so kb passes it +LINE FILE as it would the real one.
  writeFileSync(join(dir, 'vim'), `#!/bin/sh\necho "$@" > '${join(dir, 'editor-args')}'\n`);
  chmodSync(join(dir, 'vim'), 0o755);
});
afterAll(() => {
  if (hasTmux) spawnSync('tmux', ['kill-session', '-t', SESSION]);
});

describe.skipIf(!hasTmux)('kb tui in tmux', () => {
  it('shows the hit and its cited lines for a typed query, and Enter opens the editor at the line', async () => {
    const env = [
      `PATH=${process.env.PATH}`,
      `KB_DATA_DIR=${join(dir, 'data')}`,
      `KB_CONFIG=${join(dir, 'none.yaml')}`,
      `EDITOR=${join(dir, 'vim')}`,
      'NO_COLOR=1',
    ];
    tmux('new-session', '-d', '-s', SESSION, '-x', '80', '-y', '24', 'env', ...env, process.execPath, join(repoRoot, 'bin/kb.js'), 'tui');
    await expect.poll(screen, { timeout: 15_000 }).toMatch(/type to search/);
    tmux('send-keys', '-t', SESSION, '-l', 'walrus hauled');
    await expect.poll(screen, { timeout: 10_000 }).toMatch(/› Field notes \(markdown\)/);
    // The preview follows the list (its span is read after the hits arrive).
    await expect.poll(screen, { timeout: 10_000 }).toMatch(/▌\s*\d+ The walrus hauled out on the ice floe at dawn\./);
    const s = screen();
    expect(s).toMatch(/field\.md · L\d+/);
    const line = /▌\s*(\d+) The walrus hauled/.exec(s)![1];
    tmux('send-keys', '-t', SESSION, 'Enter');
    await expect.poll(() => existsSync(join(dir, 'editor-args')), { timeout: 10_000 }).toBe(true);
    const args = readFileSync(join(dir, 'editor-args'), 'utf8').trim();
    expect(args).toMatch(new RegExp(`^\\+\\d+ ${join(dir, 'notes/field.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(Number(args.split(' ')[0]!.slice(1))).toBeLessThanOrEqual(Number(line));
    // Back from the editor, the UI is drawn again; Esc quits and the terminal is given back.
    await expect.poll(screen).toMatch(/opened field\.md/);
    // Stacked at 80 columns; resized to 120, the preview moves beside the list.
    expect(screen()).not.toMatch(/› Field notes \(markdown\) +field\.md · L/);
    tmux('resize-window', '-t', SESSION, '-x', '120', '-y', '30');
    await expect.poll(screen, { timeout: 10_000 }).toMatch(/› Field notes \(markdown\) +field\.md · L/);
    tmux('send-keys', '-t', SESSION, 'Escape');
    await expect.poll(() => spawnSync('tmux', ['has-session', '-t', SESSION]).status, { timeout: 10_000 }).not.toBe(0);
  }, 60_000);
});
