// Downloads one file from the hub into a .part file: resumes with HTTP Range where a .part already
// exists, and checks the size and sha256 when they are known. Nothing here touches the installed model.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { KbError } from '../../shared/errors.js';
import type { ModelFile } from './registry.js';

export interface FileProgress {
  file: string;
  received: number;
  total: number | null;
}

async function sha256Of(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Fetches `url` into `dest` (via `dest.part`); the finished file appears only once verified. */
export async function downloadFile(
  url: string,
  dest: string,
  file: ModelFile,
  opts: { onProgress?: (p: FileProgress) => void; signal?: AbortSignal } = {},
): Promise<void> {
  const part = `${dest}.part`;
  await mkdir(dirname(dest), { recursive: true });
  const have = existsSync(part) ? statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: have > 0 ? { Range: `bytes=${have}-` } : {}, signal: opts.signal ?? null, redirect: 'follow' });
  } catch (e) {
    throw new KbError('UNREADABLE', `cannot reach ${url}: ${(e as Error).message}`);
  }
  if (res.status === 404) {
    if (file.optional) return;
    throw new KbError('NOT_FOUND', `not on the hub (404): ${url}`);
  }
  if (res.status === 416 && have > 0) {
    // The .part is already whole (or longer than the file): verify it as it is.
  } else if (res.status !== 200 && res.status !== 206) {
    throw new KbError('UNREADABLE', `the hub answered ${res.status} ${res.statusText} for ${url}`);
  }
  // A server that ignores Range sends the whole file again (200): start over.
  const append = res.status === 206;
  const totalHeader = res.status === 206 ? res.headers.get('content-range')?.split('/')[1] : res.headers.get('content-length');
  const total = totalHeader && totalHeader !== '*' ? Number(totalHeader) : (file.size ?? null);
  if (res.status !== 416 && res.body) {
    const fh = await open(part, append ? 'a' : 'w');
    let received = append ? have : 0;
    try {
      // Node's web streams are async iterable (DOM typings pulled in by electron.d.ts say otherwise).
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        await fh.write(chunk);
        received += chunk.byteLength;
        opts.onProgress?.({ file: file.path, received, total });
      }
    } catch (e) {
      throw new KbError(
        'UNREADABLE',
        `the download of ${file.path} broke off at ${received} bytes (run the same command to resume): ${(e as Error).message}`,
      );
    } finally {
      await fh.close();
    }
  }
  const size = statSync(part).size;
  const expected = file.size ?? total;
  if (expected !== null && expected !== undefined && size !== expected) {
    if (size > expected) await rm(part, { force: true });
    throw new KbError(
      'MODEL_INVALID',
      `${file.path} is ${size} bytes, expected ${expected}${size < expected ? ' (run the same command to resume)' : ''}`,
    );
  }
  if (file.sha256) {
    const got = await sha256Of(part);
    if (got !== file.sha256) {
      await rm(part, { force: true }); // a corrupt file must not be resumed from
      throw new KbError(
        'MODEL_INVALID',
        `${file.path} failed its checksum (sha256 ${got.slice(0, 12)}…, expected ${file.sha256.slice(0, 12)}…)`,
      );
    }
  }
  await rename(part, dest);
}
