// Files dropped onto the UI in a browser: a browser never tells a page where a file lives on disk, so
// kb serve receives the bytes and keeps them under the data dir's uploads/, and the page then asks the
// engine to index those copies. Each copy is kept by its content: uploads/<hash>/<its path in the
// drop>, so two different files dropped under one name (two todo.txt) never replace each other, and
// the same file dropped again is the same copy (indexed as unchanged). The desktop app needs none of
// this: it knows dropped files' paths.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { KbError } from '../../shared/errors.js';

/** Largest single upload accepted (the engine's own per-file limits apply after). */
export const MAX_UPLOAD_BYTES = 1024 ** 3;

/**
 * A dropped file's relative path made safe to join under uploads/: `/` or `\` separated, no empty,
 * `.` or `..` parts, no drive letters or control characters. Throws INVALID_ARGUMENT otherwise.
 */
export function safeRelativePath(name: string): string {
  const parts = name.split(/[\\/]+/).filter((p) => p !== '');
  const bad =
    parts.length === 0 || parts.some((p) => p === '.' || p === '..' || /[\x00-\x1f:*?"<>|]/.test(p)) || parts.join('/').length > 1024;
  if (bad) throw new KbError('INVALID_ARGUMENT', `not a usable file name: ${JSON.stringify(name)}`);
  return parts.join('/');
}

/**
 * Streams the request body to uploads/<hash>/<name>: written to a temporary file while it is hashed,
 * so a broken upload leaves nothing half-written, then moved where its content says.
 */
export async function receiveUpload(
  req: IncomingMessage,
  uploadsDir: string,
  name: string,
  /** Takes each chunk's bytes from the sender's quota; throws when it is spent (the copy is then dropped). */
  spend: (bytes: number) => Promise<void> = async () => undefined,
): Promise<string> {
  const rel = safeRelativePath(name);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > MAX_UPLOAD_BYTES) throw new KbError('INVALID_ARGUMENT', `${rel} is larger than ${MAX_UPLOAD_BYTES} bytes`);
  const incoming = join(uploadsDir, '.incoming');
  await mkdir(incoming, { recursive: true });
  const tmp = join(incoming, `${randomBytes(8).toString('hex')}.part`);
  const hash = createHash('sha256');
  let seen = 0;
  try {
    await pipeline(
      req,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          seen += chunk.length;
          if (seen > MAX_UPLOAD_BYTES) throw new KbError('INVALID_ARGUMENT', `${rel} is larger than ${MAX_UPLOAD_BYTES} bytes`);
          await spend(chunk.length);
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(tmp),
    );
    const file = join(uploadsDir, hash.digest('hex').slice(0, 16), rel);
    // The same bytes under the same name are already here: that copy is the one to index.
    if (existsSync(file)) await rm(tmp, { force: true });
    else {
      await mkdir(dirname(file), { recursive: true });
      await rename(tmp, file);
    }
    return file;
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}
