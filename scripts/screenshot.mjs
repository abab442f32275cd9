// Regenerates docs/screenshot.png: a real kb session (ingest + search) on a small demo folder, run
// under a pseudo-terminal so colours are kept, rendered by headless Chromium.
// Needs: Debian's chromium and util-linux's `script`. Usage: node scripts/screenshot.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const work = mkdtempSync(join(tmpdir(), 'kb-shot-'));
const notes = join(work, 'notes');
mkdirSync(join(notes, 'dev'), { recursive: true });
writeFileSync(
  join(notes, 'dev/git.md'),
  `---\ntags: [tools]\n---\n# Git\n\nNotes on version control.\n\n## Setup\n\n### Linux\n\nInstall git with \`sudo apt-get install git\`, then set your name and email:\n\n\`\`\`sh\ngit config --global user.name "Ada"\n\`\`\`\n\n## Branches\n\nCreate a branch with \`git switch -c topic\`; merge it back with \`git merge topic\`.\n`,
);
writeFileSync(
  join(notes, 'dev/deploy.py'),
  `import subprocess\n\n\n# Tags the release in git and pushes it.\ndef tag_release(version):\n    """Create an annotated git tag and push it to origin."""\n    subprocess.run(["git", "tag", "-a", version, "-m", version], check=True)\n    subprocess.run(["git", "push", "origin", version], check=True)\n`,
);
writeFileSync(join(notes, 'reading.txt'), 'Books to read: The Pragmatic Programmer; Designing Data-Intensive Applications.\n');

const env = { ...process.env, KB_DATA_DIR: join(work, 'data'), KB_CONFIG: join(work, 'none.yaml'), COLUMNS: '110' };
const run = (cmd) => execFileSync('script', ['-qec', cmd, '/dev/null'], { cwd: work, env, encoding: 'utf8' });
const kb = `node ${join(root, 'bin/kb.js')}`;
const session = [
  // The progress bar goes to stderr; the screenshot shows the summary line.
  ['kb ingest notes --tags personal', run(`${kb} ingest notes --tags personal 2>/dev/null`)],
  ['kb search "how do I tag a release in git"', run(`${kb} search "how do I tag a release in git" --top 3`)],
];

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
function ansiToHtml(s) {
  const styles = { 1: 'font-weight:bold', 2: 'opacity:.6', 31: 'color:#ff6b6b', 33: 'color:#f2c94c', 36: 'color:#56d4e0' };
  let out = '';
  let open = 0;
  for (const part of s.replace(/\r/g, '').split(/(\u001b\[[0-9;]*m)/)) {
    const m = part.match(/^\u001b\[([0-9;]*)m$/);
    if (!m) out += esc(part);
    else if (styles[m[1]]) {
      out += `<span style="${styles[m[1]]}">`;
      open++;
    } else if (open > 0) {
      out += '</span>';
      open--;
    }
  }
  return out + '</span>'.repeat(open);
}
const body = session
  .map(([cmd, out]) => `<div><span style="color:#7ee787">~/kb-demo $</span> ${esc(cmd)}</div>${ansiToHtml(out)}`)
  .join('\n');
const html = `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#0d1117">
<pre style="margin:0;padding:18px 22px;color:#e6edf3;font:14px/1.45 'DejaVu Sans Mono',monospace;white-space:pre-wrap;width:1000px">${body}</pre>`;
writeFileSync(join(work, 'shot.html'), html);
execFileSync(
  '/usr/bin/chromium',
  [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--no-first-run',
    '--hide-scrollbars',
    `--user-data-dir=${join(work, 'chrome')}`,
    '--window-size=1044,600',
    `--screenshot=${join(root, 'docs/screenshot.png')}`,
    `file://${join(work, 'shot.html')}`,
  ],
  { stdio: 'ignore' },
);
console.log('wrote docs/screenshot.png');
