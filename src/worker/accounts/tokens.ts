// A user's token: `kb_<id>_<secret>`. The id (public) finds the account; the secret is stored only as a
// salted scrypt hash, compared in constant time. A token is shown once, when it is made.
import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  secret: string,
  salt: Buffer,
  keylen: number,
  opts: { N: number; r: number; p: number },
) => Promise<Buffer>;

/** scrypt's cost: about 50 ms and 16 MB a check on this machine's cores (a login, not every request: see service.ts). */
const COST = { N: 16384, r: 8, p: 1 };
const KEY_BYTES = 32;
const TOKEN = /^kb_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;

export interface NewToken {
  /** The whole token, for the user (shown once). */
  token: string;
  id: string;
  secret: string;
}

export function newToken(): NewToken {
  const id = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { token: `kb_${id}_${secret}`, id, secret };
}

/** A token's two halves, or null when it is not one of kb's. */
export function parseToken(token: string): { id: string; secret: string } | null {
  const m = TOKEN.exec(token.trim());
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(secret, salt, KEY_BYTES, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function secretMatches(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const want = Buffer.from(hash, 'base64');
  const got = await scrypt(secret, Buffer.from(salt, 'base64'), want.length, { N: Number(n), r: Number(r), p: Number(p) });
  return got.length === want.length && timingSafeEqual(got, want);
}

/** A fingerprint of a secret already checked, to know it again without paying scrypt. */
export function digestOf(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}
