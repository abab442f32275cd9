// How a chunk is stored packed, behind a first byte naming the format, so a better one can come
// without rewriting the old. 1 (migration 12): its text, raw deflate. 2 (migration 14): its heading,
// anchor and text as one record, raw deflate against a dictionary the index trained on its own
// chunks (pack-dictionaries.ts), whose id follows the format byte (0: none yet). The heading and
// anchor of a chunk in format 2 are '' in their columns: statements read all three through
// kb_heading, kb_anchor and kb_unpack (index-functions.ts). Chunks in scripts without spaces stay
// plain: the trigram index reads its content from the text column.
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const TEXT_DEFLATED = 1;
const RECORD = 2;

/** A chunk's heading, anchor (JSON text) and text, as one record packs them. */
export interface ChunkRecord {
  heading: string;
  anchor: string;
  text: string;
}

/** What a packed chunk holds: a format 1 chunk keeps its heading and anchor in their columns (null here). */
export interface Unpacked {
  text: string;
  heading: string | null;
  anchor: string | null;
}

/** A dictionary deflate starts from, and the id a record names it by. */
export interface PackDictionary {
  id: number;
  bytes: Buffer;
}

/** Format 1: the packing upgrade of indexes from before migration 14 writes it. */
export function packText(text: string): Buffer {
  return Buffer.concat([Buffer.of(TEXT_DEFLATED), deflateRawSync(Buffer.from(text, 'utf8'))]);
}

export function packRecord(record: ChunkRecord, dictionary: PackDictionary | null): Buffer {
  const heading = Buffer.from(record.heading, 'utf8');
  const anchor = Buffer.from(record.anchor, 'utf8');
  const payload = Buffer.concat([varint(heading.length), heading, varint(anchor.length), anchor, Buffer.from(record.text, 'utf8')]);
  const deflated = dictionary ? deflateRawSync(payload, { dictionary: dictionary.bytes }) : deflateRawSync(payload);
  return Buffer.concat([Buffer.of(RECORD), varint(dictionary?.id ?? 0), deflated]);
}

/** Whether a packed chunk is a record (format 2), which has nothing left to upgrade. */
export function isRecord(packed: Uint8Array): boolean {
  return packed[0] === RECORD;
}

/** The dictionary a record names (0: none), or null for a chunk in format 1. */
export function dictionaryOf(packed: Uint8Array): number | null {
  return packed[0] === RECORD ? readVarint(packed, 1)[0] : null;
}

export function unpackChunk(packed: Uint8Array, dictionary: (id: number) => Buffer): Unpacked {
  if (packed[0] === TEXT_DEFLATED) return { text: inflateRawSync(packed.subarray(1)).toString('utf8'), heading: null, anchor: null };
  if (packed[0] !== RECORD) throw new Error(`a chunk packed in an unknown format (${packed[0]}): a newer kb wrote it`);
  const [id, at] = readVarint(packed, 1);
  const body = packed.subarray(at);
  const payload = id === 0 ? inflateRawSync(body) : inflateRawSync(body, { dictionary: dictionary(id) });
  const [headingLength, h] = readVarint(payload, 0);
  const [anchorLength, a] = readVarint(payload, h + headingLength);
  return {
    heading: payload.toString('utf8', h, h + headingLength),
    anchor: payload.toString('utf8', a, a + anchorLength),
    text: payload.toString('utf8', a + anchorLength),
  };
}

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return Buffer.from(out);
}

function readVarint(bytes: Uint8Array, from: number): [value: number, next: number] {
  let value = 0;
  let scale = 1;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i]!;
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, i + 1];
    scale *= 0x80;
  }
  throw new Error('a packed chunk ends inside its header: the index is damaged');
}
