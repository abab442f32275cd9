// The originals' bytes in the PostgreSQL database (migration 5), with this machine's copies of the
// ones it opened: a viewer, OCR and transcription read files, so a blob is fetched once into the data
// dir's blobs/ folder (the SQLite store's own layout, store/blobs.ts) and read from there after. A
// blob and its parts are written in one transaction: another process sees the whole blob or none.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { BlobStore } from '../blobs.js';
import type { BlobsPort } from '../port.js';
import { inTransaction, type PgClient, type PgPool } from './connect.js';
import { rows, value } from './tables/sql.js';

/** Bytes per part: far below bytea's limit, small enough to stream a recording through. */
const PART = 1 << 20;

export class PgBlobs implements BlobsPort {
  /** This machine's copies. */
  private readonly local: BlobStore;

  constructor(
    private readonly pool: PgPool,
    cacheDir: string,
  ) {
    this.local = new BlobStore(cacheDir);
  }

  async has(sha256: string): Promise<boolean> {
    return (await value<boolean>(this.pool, 'SELECT EXISTS (SELECT 1 FROM blobs WHERE sha256 = $1)', [sha256])) === true;
  }

  /**
   * Claims the blob's row; false when another writer has it already (then its bytes are the same).
   * Not ON CONFLICT DO NOTHING: that asks to read the row it would meet, which a team's user may not
   * (row-level security: the bytes of documents they cannot see) — a duplicate key says it instead.
   */
  private async claim(c: PgClient, sha256: string, size: number): Promise<boolean> {
    await c.query('SAVEPOINT claim');
    try {
      await c.query('INSERT INTO blobs (sha256, size) VALUES ($1, $2)', [sha256, size]);
      await c.query('RELEASE SAVEPOINT claim');
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== '23505') throw e;
      await c.query('ROLLBACK TO SAVEPOINT claim');
      return false;
    }
  }

  private async part(c: PgClient, sha256: string, n: number, bytes: Uint8Array): Promise<void> {
    await c.query('INSERT INTO blob_parts (sha256, part, bytes) VALUES ($1, $2, $3)', [
      sha256,
      n,
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    ]);
  }

  async put(sha256: string, bytes: Uint8Array): Promise<void> {
    if (await this.has(sha256)) return;
    await inTransaction(this.pool, async (c) => {
      if (!(await this.claim(c, sha256, bytes.byteLength))) return;
      for (let i = 0, n = 0; i < bytes.byteLength || n === 0; i += PART, n++) await this.part(c, sha256, n, bytes.subarray(i, i + PART));
    });
  }

  async putFile(sha256: string, source: string): Promise<void> {
    if (await this.has(sha256)) return;
    // Its size first: the row is written before its parts (they refer to it), and never updated.
    const { size } = await stat(source);
    await inTransaction(this.pool, async (c) => {
      if (!(await this.claim(c, sha256, size))) return;
      let n = 0;
      for await (const chunk of createReadStream(source, { highWaterMark: PART })) await this.part(c, sha256, n++, chunk as Buffer);
      if (n === 0) await this.part(c, sha256, 0, new Uint8Array(0));
    });
  }

  /** This machine's copy, fetched a part at a time the first time it is asked for. */
  async file(sha256: string): Promise<string | null> {
    const here = await this.local.file(sha256);
    if (here) return here;
    if (!(await this.has(sha256))) return null;
    const parts = (await value<number>(this.pool, 'SELECT count(*) FROM blob_parts WHERE sha256 = $1', [sha256])) ?? 0;
    const pool = this.pool;
    async function* read(): AsyncIterable<Uint8Array> {
      for (let n = 0; n < parts; n++) {
        const r = await rows<{ bytes: Buffer }>(pool, 'SELECT bytes FROM blob_parts WHERE sha256 = $1 AND part = $2', [sha256, n]);
        yield r[0]!.bytes;
      }
    }
    await this.local.putStream(sha256, read());
    return this.local.pathOf(sha256);
  }

  async drop(sha256: string): Promise<number> {
    const gone = await rows<{ size: number }>(this.pool, 'DELETE FROM blobs WHERE sha256 = $1 RETURNING size', [sha256]);
    await this.local.drop(sha256);
    return gone[0]?.size ?? 0;
  }

  /** Deletes the blobs no document refers to, in the database and here. */
  async gc(keep: Set<string>): Promise<{ removed: number; bytes: number }> {
    const gone = await rows<{ size: number }>(this.pool, 'DELETE FROM blobs WHERE NOT (sha256 = ANY ($1::text[])) RETURNING size', [
      [...keep],
    ]);
    await this.local.gc(keep);
    return { removed: gone.length, bytes: gone.reduce((s, r) => s + r.size, 0) };
  }
}
