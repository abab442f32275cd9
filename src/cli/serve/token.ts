// kb serve's access token, kept per data dir in <data dir>/serve-token (0600): a page left open
// reconnects to the same data dir's server after a restart without a new link. Anyone who can read
// that file can already read the whole data dir.
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'serve-token';

/** Where the owner's token is kept: printed as a path, never as the token, where a log may keep it. */
export function serveTokenFile(dataDir: string): string {
  return join(dataDir, FILE);
}

export function serveToken(dataDir: string): string {
  const file = serveTokenFile(dataDir);
  try {
    const t = readFileSync(file, 'utf8').trim();
    if (/^[\w-]{32}$/.test(t)) {
      chmodSync(file, 0o600);
      return t;
    }
  } catch {
    // none yet (or unreadable): make one
  }
  const t = randomBytes(24).toString('base64url');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(file, `${t}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // also when the file was there with other permissions
  return t;
}
