// The desktop app's package for this machine: the app built (electron-vite), packed as a directory
// around a stand-in Electron (packaging/pack-dir.ts), and weighed — app.asar, what is unpacked beside
// it, and the largest packages in each. Electron's own binary (about 250 MB) is not counted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listPackage, statFile } from '@electron/asar';
import { packDir } from '../packaging/pack-dir.js';
import { electronViteBin } from '../tools/electron-tools.mjs';
import { type BenchResult, repoRoot as root } from './util.js';

const MB = 1e6;

/** A file's package: node_modules/<name> (scoped too), else its top folder. */
const packageOf = (path: string): string =>
  /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').filter(Boolean)[0] ?? path;

function du(dir: string, by: Map<string, number>, rel = ''): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) total += du(p, by, r);
    else if (e.isFile()) {
      const size = statSync(p).size;
      by.set(packageOf(r), (by.get(packageOf(r)) ?? 0) + size);
      total += size;
    }
  }
  return total;
}

const largest = (by: Map<string, number>): string =>
  [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([k, v]) => `${k} ${(v / MB).toFixed(1)}`)
    .join(', ');

export async function benchPackage(): Promise<BenchResult> {
  execFileSync(process.execPath, [electronViteBin(root), 'build'], { cwd: root, stdio: 'ignore' });
  const out = mkdtempSync(join(tmpdir(), 'kb-package-'));
  const resources = await packDir(root, out);
  const asar = join(resources, 'app.asar');
  const inAsar = new Map<string, number>();
  let asarBytes = 0;
  for (const f of listPackage(asar, { isPack: false })) {
    const st = statFile(asar, f.replace(/^[\\/]/, ''), false);
    if (!('size' in st) || ('unpacked' in st && st.unpacked)) continue;
    inAsar.set(packageOf(f.replaceAll('\\', '/')), (inAsar.get(packageOf(f.replaceAll('\\', '/'))) ?? 0) + st.size);
    asarBytes += st.size;
  }
  const unpacked = new Map<string, number>();
  const unpackedBytes = du(join(resources, 'app.asar.unpacked'), unpacked);
  rmSync(out, { recursive: true, force: true });
  return {
    name: `the desktop package (${process.platform}-${process.arch}, without Electron's binary)`,
    lines: [
      `app.asar: ${(asarBytes / MB).toFixed(1)} MB — largest: ${largest(inAsar)}`,
      `app.asar.unpacked: ${(unpackedBytes / MB).toFixed(1)} MB — largest: ${largest(unpacked)}`,
    ],
    checks: [],
  };
}
