// The content-addressed store of originals: blobs/<2 hex>/<sha256>. Written atomically (temp file,
// rename) so a crash leaves either the whole blob or nothing. Like the index (WAL, synchronous=NORMAL),
// it is not fsynced per file: the user's own file is still on disk at ingest time, and a blob lost to
// a power cut is written again by the next ingest of that file (doctor reports it meanwhile).
import { randomBytes } from 'node:crypto';
import { constants, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobsPort } from './port.js';

export class BlobStore implements BlobsPort {
  constructor(readonly dir: string) {}

  pathOf(sha256: string): string {
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  async file(sha256: string): Promise<string | null> {
    return (await this.has(sha256)) ? this.pathOf(sha256) : null;
  }

  async has(sha256: string): Promise<boolean> {
    try {
      return (await stat(this.pathOf(sha256))).isFile();
    } catch {
      return false;
    }
  }

  /** The blob's final path and a fresh temp path beside it (its shard folder made). */
  private async slot(sha256: string): Promise<{ final: string; tmp: string }> {
    const final = this.pathOf(sha256);
    await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true });
    return { final, tmp: `${final}.${randomBytes(6).toString('hex')}.tmp` };
  }

  async put(sha256: string, bytes: Uint8Array): Promise<void> {
    if (await this.has(sha256)) return;
    await this.putStream(sha256, [bytes]);
  }

  /** Writes a blob from its pieces as they come (a server's copy fetched a part at a time). */
  async putStream(sha256: string, pieces: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    if (await this.has(sha256)) return;
    const { final, tmp } = await this.slot(sha256);
    const fh = await open(tmp, 'wx', 0o600);
    try {
      for await (const piece of pieces) await fh.write(piece);
    } catch (e) {
      await fh.close();
      await rm(tmp, { force: true });
      throw e;
    }
    await fh.close();
    await rename(tmp, final);
  }

  /** Copies a file in (streamed: a long recording is never held in memory). */
  async putFile(sha256: string, source: string): Promise<void> {
    if (await this.has(sha256)) return;
    const { final, tmp } = await this.slot(sha256);
    try {
      await copyFile(source, tmp, constants.COPYFILE_EXCL);
      await chmod(tmp, 0o600);
      await rename(tmp, final);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
  }

  /** The same for small blobs, without a trip through the thread pool per step. */
  putSync(sha256: string, bytes: Uint8Array): void {
    const final = this.pathOf(sha256);
    if (existsSync(final)) return;
    mkdirSync(join(this.dir, sha256.slice(0, 2)), { recursive: true });
    const tmp = `${final}.${randomBytes(6).toString('hex')}.tmp`;
    writeFileSync(tmp, bytes, { flag: 'wx', mode: 0o600 });
    renameSync(tmp, final);
  }

  async drop(sha256: string): Promise<number> {
    const p = this.pathOf(sha256);
    try {
      const { size } = await stat(p);
      await unlink(p);
      return size;
    } catch {
      return 0; // gone already
    }
  }

  /** Deletes every blob not in `keep`; returns how many and how many bytes were freed. */
  async gc(keep: Set<string>): Promise<{ removed: number; bytes: number }> {
    let removed = 0;
    let bytes = 0;
    let shards: string[];
    try {
      shards = await readdir(this.dir);
    } catch {
      return { removed, bytes };
    }
    for (const shard of shards) {
      const shardDir = join(this.dir, shard);
      let names: string[];
      try {
        names = await readdir(shardDir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (keep.has(name)) continue;
        const p = join(shardDir, name);
        try {
          bytes += (await stat(p)).size;
          await unlink(p);
          removed++;
        } catch {
          // a blob removed concurrently is already gone
        }
      }
      if ((await readdir(shardDir).catch(() => ['x'])).length === 0) await rm(shardDir, { recursive: true, force: true });
    }
    return { removed, bytes };
  }
}
