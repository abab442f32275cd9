// A file copied into a folder by its content: <folder>/<first 16 hex of its sha256>/<name>. Written
// to a temporary file first and moved into place, so a failed copy leaves nothing half-written; the
// same bytes under the same name are the copy already there.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export async function copyByContent(file: string, folder: string, name: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  const dest = join(folder, hash.digest('hex').slice(0, 16), name);
  if (await stat(dest).catch(() => null)) return dest;
  await mkdir(dirname(dest), { recursive: true });
  const tmp = `${dest}.${randomBytes(6).toString('hex')}.part`;
  try {
    await copyFile(file, tmp);
    await rename(tmp, dest);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return dest;
}
