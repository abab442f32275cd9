// Office documents, ODF files and e-books are zips. Before any of it is inflated, the central
// directory says what is inside: a zip bomb (an entry that inflates far beyond its size, or entries
// that add up to more than the limit) fails TOO_LARGE, an encrypted one ENCRYPTED, a broken one
// PARSE_FAILED. A password-protected Office file is not a zip at all but an OLE container.
import JSZip from 'jszip';
import { KbError } from '../../../shared/errors.js';
import { formatBytes } from '../../../shared/bytes.js';

export interface ZipLimits {
  /** All entries together, inflated. */
  max_expanded_bytes: number;
  /** Inflated ÷ stored size of one entry above 1 MB inflated. */
  max_ratio: number;
}

/** The limits as config.yaml sets them (ingest.zip_max_expanded_bytes, ingest.zip_max_ratio). */
export function zipLimitsOf(ingest: { zip_max_expanded_bytes: number; zip_max_ratio: number }): ZipLimits {
  return { max_expanded_bytes: ingest.zip_max_expanded_bytes, max_ratio: ingest.zip_max_ratio };
}

interface Entry {
  name: string;
  compressed: number;
  size: number;
  encrypted: boolean;
}

const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** The entries listed in the central directory (read from the end of the file, nothing inflated). */
function centralDirectory(b: Uint8Array): Entry[] {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  // The end-of-central-directory record sits in the last 64 KB + 22 bytes (its comment is at most 64 KB).
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 65_557); i--) {
    if (dv.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new KbError('PARSE_FAILED', 'not a zip archive, or a damaged one (no central directory)');
  let count = dv.getUint16(eocd + 10, true);
  let offset = dv.getUint32(eocd + 16, true);
  // Zip64: the real count and offset are in the zip64 end record the locator points at.
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && dv.getUint32(eocd - 20, true) === 0x07064b50) {
    const z64 = Number(dv.getBigUint64(eocd - 12, true));
    if (z64 + 56 > b.length || dv.getUint32(z64, true) !== 0x06064b50) throw new KbError('PARSE_FAILED', 'damaged zip64 directory');
    count = Number(dv.getBigUint64(z64 + 32, true));
    offset = Number(dv.getBigUint64(z64 + 48, true));
  }
  const out: Entry[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > b.length || dv.getUint32(p, true) !== 0x02014b50)
      throw new KbError('PARSE_FAILED', 'damaged zip archive (its directory is cut short)');
    const flags = dv.getUint16(p + 8, true);
    let compressed = dv.getUint32(p + 20, true);
    let size = dv.getUint32(p + 24, true);
    const nameLen = dv.getUint16(p + 28, true);
    const extraLen = dv.getUint16(p + 30, true);
    const commentLen = dv.getUint16(p + 32, true);
    const name = new TextDecoder().decode(b.subarray(p + 46, p + 46 + nameLen));
    // Zip64 sizes live in the extra field (id 1) when the 32-bit ones are saturated.
    if (size === 0xffffffff || compressed === 0xffffffff) {
      let x = p + 46 + nameLen;
      const end = x + extraLen;
      while (x + 4 <= end) {
        const id = dv.getUint16(x, true);
        const len = dv.getUint16(x + 2, true);
        if (id === 1) {
          let q = x + 4;
          if (size === 0xffffffff) {
            size = Number(dv.getBigUint64(q, true));
            q += 8;
          }
          if (compressed === 0xffffffff) compressed = Number(dv.getBigUint64(q, true));
          break;
        }
        x += 4 + len;
      }
    }
    out.push({ name, compressed, size, encrypted: (flags & 1) === 1 });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** Says why a zip may not be opened, or opens it. `what` names the format in messages ("a Word document"). */
export async function openZip(bytes: Uint8Array, limits: ZipLimits, what: string): Promise<JSZip> {
  if (bytes.length === 0) throw new KbError('EMPTY', 'the file is empty');
  if (OLE.every((x, i) => bytes[i] === x)) {
    throw new KbError(
      'ENCRYPTED',
      `${what} protected by a password (or an old binary Office file under a new name): open it in its app, remove the password and save it again`,
    );
  }
  const entries = centralDirectory(bytes);
  if (entries.some((e) => e.encrypted))
    throw new KbError('ENCRYPTED', `${what} whose contents are encrypted: kb cannot read it without the password`);
  let total = 0;
  for (const e of entries) {
    total += e.size;
    if (e.size > 1_048_576 && e.size > limits.max_ratio * Math.max(1, e.compressed)) {
      throw new KbError(
        'TOO_LARGE',
        `${e.name} inflates ${Math.round(e.size / Math.max(1, e.compressed))}× (over ingest.zip_max_ratio ${limits.max_ratio}): refused as a possible zip bomb`,
      );
    }
  }
  if (total > limits.max_expanded_bytes) {
    throw new KbError(
      'TOO_LARGE',
      `${formatBytes(total)} once unpacked, over ingest.zip_max_expanded_bytes (${formatBytes(limits.max_expanded_bytes)})`,
    );
  }
  try {
    return await JSZip.loadAsync(bytes);
  } catch (e) {
    throw new KbError('PARSE_FAILED', `damaged zip archive: ${(e as Error).message}`);
  }
}

/** An entry's text, or null when the zip has no such entry. */
export async function zipText(zip: JSZip, name: string): Promise<string | null> {
  const f = zip.file(name);
  if (!f) return null;
  try {
    return await f.async('string');
  } catch (e) {
    throw new KbError('PARSE_FAILED', `damaged entry ${name}: ${(e as Error).message}`);
  }
}
