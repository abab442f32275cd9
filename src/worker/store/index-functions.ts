// SQL functions the index's triggers and statements call, registered on every connection openDb
// makes: which chunks the trigram index holds (those in scripts written without spaces between
// words), which words of a chunk substring search can look inside (identifiers and long compounds —
// everything else a search finds by its words: FTS5 cuts snake_case, kebab-case and dotted names into
// them already), and a chunk packed and unpacked (packed-chunks.ts).
import type { Db } from './db.js';
import { compoundWords, SPACELESS } from './insides.js';

export { compoundWords, fold, SPACELESS } from './insides.js';
import { PackDictionaries } from './pack-dictionaries.js';
import { isRecord, packRecord, packText, unpackChunk, type Unpacked } from './packed-chunks.js';

/** Whether a chunk of this text is stored packed (everything but the scripts the trigram index reads). */
export function packable(text: string): boolean {
  return !SPACELESS.test(text);
}

export function registerIndexFunctions(db: Db): void {
  db.function('kb_spaceless', { deterministic: true }, (text: unknown) => (typeof text === 'string' && SPACELESS.test(text) ? 1 : 0));
  db.function('kb_compound_words', { deterministic: true }, (text: unknown) =>
    JSON.stringify(typeof text === 'string' ? compoundWords(text) : []),
  );
  db.function('kb_pack', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? packText(text) : null));
  const dictionaries = new PackDictionaries(db.name);
  registries.set(db, dictionaries);
  // A chunk's text, heading and anchor, packed or plain (every statement reads them through these:
  // kb_unpack(c.packed, c.text), kb_heading(c.packed, c.heading), kb_anchor(c.packed, c.anchor)).
  // The last one unpacked is kept: a statement reads all three of a row, an insert's trigger its text twice.
  let last: { packed: Buffer; unpacked: Unpacked } | null = null;
  const unpacked = (packed: Uint8Array): Unpacked => {
    if (last?.packed.equals(packed)) return last.unpacked;
    last = { packed: Buffer.from(packed), unpacked: unpackChunk(packed, (id) => dictionaries.bytes(id)) };
    return last.unpacked;
  };
  db.function('kb_unpack', { deterministic: true }, (packed: unknown, text: unknown) =>
    packed instanceof Uint8Array ? unpacked(packed).text : typeof text === 'string' ? text : '',
  );
  db.function('kb_heading', { deterministic: true }, (packed: unknown, heading: unknown) =>
    packed instanceof Uint8Array ? (unpacked(packed).heading ?? String(heading)) : typeof heading === 'string' ? heading : '',
  );
  db.function('kb_anchor', { deterministic: true }, (packed: unknown, anchor: unknown) =>
    packed instanceof Uint8Array ? (unpacked(packed).anchor ?? String(anchor)) : typeof anchor === 'string' ? anchor : '',
  );
  // A format 1 chunk as a record (the records upgrade), with the dictionary in use: refresh it first.
  db.function('kb_repack', { deterministic: false }, (packed: unknown, heading: unknown, anchor: unknown) => {
    if (!(packed instanceof Uint8Array) || isRecord(packed)) return packed;
    const u = unpacked(packed);
    return packRecord({ heading: String(heading), anchor: String(anchor), text: u.text }, dictionaries.current(db));
  });
}

const registries = new WeakMap<Db, PackDictionaries>();

/** The pack dictionaries of a connection openDb made. */
export function dictionariesOf(db: Db): PackDictionaries {
  const d = registries.get(db);
  if (!d) throw new Error('a connection without the index functions: open it with openDb');
  return d;
}
