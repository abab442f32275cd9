// Reading a user's file: its bytes or a stream of them, its hash, and file-system errors as the user
// should hear them.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { access, open } from 'node:fs/promises';
import { KbError } from '../../shared/errors.js';

/**
 * Files up to this size are read (and copied to the store) with synchronous calls: tens of
 * microseconds each, while every async step would wait for the engine thread between index writes.
 */
export const SMALL_FILE = 1024 * 1024;

export const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** The first 8 KB, for type detection of a file too large to read whole before knowing what it is. */
export async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export function fsError(e: unknown, path: string): KbError {
  if (e instanceof KbError) return e;
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new KbError('VANISHED', `${path} disappeared while it was being read`);
  if (code === 'EACCES' || code === 'EPERM') return new KbError('UNREADABLE', `permission denied: ${path}`);
  if (code === 'EISDIR') return new KbError('UNREADABLE', `${path} is a folder`);
  return new KbError('UNREADABLE', `cannot read ${path}: ${(e as Error).message}`);
}
