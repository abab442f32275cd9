// `kb serve --json`'s first lines, as the tests, benches and scripts that start it read them: its
// address, and the owner's token from the file it names (kb serve never prints the token itself
// where a log could keep it).
import { readFileSync } from 'node:fs';

export interface Served {
  /** The address with the token: a browser opened there is signed in. */
  url: string;
  port: number;
  token: string;
}

/** kb serve's JSON line(s) read: the address signed in, the port, the token. */
export function servedFrom(json: string): Served {
  const out = JSON.parse(json) as { url: string; port: number; token_file: string };
  const token = readFileSync(out.token_file, 'utf8').trim();
  return { url: `${out.url}?token=${token}`, port: out.port, token };
}
