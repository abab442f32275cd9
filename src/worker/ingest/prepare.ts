// One file made ready to write: read, detected, checked against the limits, hashed, and then either
// known already (unchanged, or moved from a path that is gone) or parsed. Writing happens later, in
// order (see pipeline.ts); preparing runs ahead of it.
import { type Stats, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import type { Config } from '../../shared/config.js';
import { KbError } from '../../shared/errors.js';
import type { Store, Tables } from '../store/port.js';
import type { DocRow } from '../store/rows.js';
import { prepareAudio, prepareImage, preparePdf } from './binary.js';
import { chunkIdsFrom } from './chunk/chunk-ids.js';
import { decodeText, detect, type Detected } from './detect.js';
import { docRow, type FileFacts } from './doc-row.js';
import { typeOfFormat } from './extensions.js';
import { zipLimitsOf } from './formats/zip.js';
import { exists, fsError, readHead, sha256, sha256File, SMALL_FILE } from './read-file.js';
import { normalizeTags } from './tags.js';
import type { ParsedDocument } from './types.js';
import { PARSER_VERSION } from '../version.js';
import { isUploadCopy } from '../uploads.js';
import type { IngestContext, Prepared } from './context.js';
import { formatBytes } from '../../shared/bytes.js';

export type { IngestContext, Outcome, Prepared } from './context.js';

async function parse(ctx: IngestContext, d: Extract<Detected, { kind: 'text' }>, text: string, path: string): Promise<ParsedDocument> {
  const name = basename(path);
  try {
    return await ctx.parser.parse({
      type: d.type,
      text,
      name,
      ext: extname(path).toLowerCase(),
      lang: d.lang,
      chunking: ctx.config.chunking,
    });
  } catch (e) {
    throw new KbError('PARSE_FAILED', `could not parse ${name} as ${d.type}: ${(e as Error).message}`, { cause: e });
  }
}

function limitFor(config: Config, kind: Detected['kind']): [bytes: number, what: string, key: string] {
  if (kind === 'pdf' || kind === 'image') return [config.ingest.max_pdf_bytes, 'PDFs and images', 'ingest.max_pdf_bytes'];
  if (kind === 'audio') return [config.audio.max_bytes, 'audio and video', 'audio.max_bytes'];
  if (kind === 'structured') return [config.ingest.max_document_bytes, 'documents of this kind', 'ingest.max_document_bytes'];
  return [config.ingest.max_text_bytes, 'text', 'ingest.max_text_bytes'];
}

/** Bytes already indexed under this path: only new tags and a new mtime to remember. */
function unchanged(
  existing: DocRow,
  path: string,
  tags: string[],
  st: Stats,
  since: number | undefined,
  onRetag?: (docId: string) => void,
): Prepared {
  return {
    commit: async (t: Tables) => {
      if ((await t.tags.add(existing.id, tags)) > 0) {
        await t.chunks.refreshWords(existing.id);
        onRetag?.(existing.id);
      }
      if (existing.error) await t.documents.setError(existing.id, null);
      // Touched but the same: remember the new mtime, so reconciling on start need not read it again.
      if (existing.mtime !== Math.floor(st.mtimeMs)) await t.documents.setMtime(existing.id, Math.floor(st.mtimeMs));
      await t.errors.clear(path);
      return since !== undefined && existing.added_at >= since ? 'added' : 'unchanged';
    },
  };
}

/** A file that moved: same bytes, and its old path is gone. It keeps its id and its chunks. */
async function moved(
  store: Store,
  hash: string,
  path: string,
  root: string,
  tags: string[],
  st: Stats,
  onRetag?: (docId: string) => void,
): Promise<Prepared | null> {
  for (const cand of await store.tables.documents.indexedWithHash(hash)) {
    if (cand.parser_version !== PARSER_VERSION || (await exists(cand.path))) continue;
    return {
      commit: async (t: Tables) => {
        await t.documents.move(cand.id, path, root, Math.floor(st.mtimeMs));
        if ((await t.tags.add(cand.id, tags)) > 0) {
          await t.chunks.refreshWords(cand.id);
          onRetag?.(cand.id);
        }
        await t.errors.clear(path);
        return 'moved';
      },
    };
  }
  return null;
}

export async function prepareFile(
  ctx: IngestContext,
  path: string,
  root: string,
  tags: string[],
  onRetag?: (docId: string) => void,
): Promise<Prepared> {
  const { store, blobs, config } = ctx;
  let st;
  let head: Uint8Array;
  let small: Buffer | null = null;
  try {
    st = statSync(path);
    if (st.size <= SMALL_FILE) {
      small = readFileSync(path);
      head = small.subarray(0, 8192);
    } else head = await readHead(path);
  } catch (e) {
    throw fsError(e, path);
  }
  const detected = await detect(path, head);
  if (detected.kind === 'skip') return { skip: detected.reason };
  if (detected.kind === 'image' && !config.ocr.enabled) return { skip: 'an image, and OCR is off (ocr.enabled)' };
  if (detected.kind === 'audio' && !config.audio.enabled) return { skip: 'audio or video, and transcription is off (audio.enabled)' };
  const [limit, what, key] = limitFor(config, detected.kind);
  if (st.size > limit) {
    throw new KbError('TOO_LARGE', `${formatBytes(st.size)} is over the ${formatBytes(limit)} limit for ${what} (${key})`);
  }
  // Audio and video are hashed and copied as streams: a long recording is never held in memory.
  let bytes: Buffer | null = null;
  let hash: string;
  try {
    if (detected.kind === 'audio' && !small) hash = await sha256File(path);
    else {
      bytes = small ?? (await readFile(path));
      hash = sha256(bytes);
    }
  } catch (e) {
    throw fsError(e, path);
  }
  const putBlob = (h: string): Promise<void> => (bytes ? blobs.put(h, bytes) : blobs.putFile(h, path));
  const existing = (await store.tables.documents.byPath(path)) ?? null;
  // A file kb read as one type before and now reads as another (a .csv once a note, now a sheet) is read again.
  const sameType = !existing || detected.kind !== 'structured' || existing.type === typeOfFormat(detected.format);
  if (
    !ctx.force &&
    existing &&
    sameType &&
    existing.status === 'indexed' &&
    existing.content_hash === hash &&
    existing.parser_version === PARSER_VERSION
  ) {
    // A lost copy of the original (see BlobStore) is written again while the file is at hand.
    const orig = await store.tables.originals.of(existing.id);
    if (orig?.blob && !(await blobs.has(orig.blob))) await putBlob(orig.blob);
    return unchanged(existing, path, tags, st, ctx.since, onRetag);
  }
  if (!existing) {
    const m = await moved(store, hash, path, root, tags, st, onRetag);
    if (m) return m;
  }

  const facts: FileFacts = {
    docId: existing?.id ?? sha256(`doc\u0000${path}\u0000${hash}`).slice(0, 20),
    path,
    root,
    hash,
    size: st.size,
    mtime: Math.floor(st.mtimeMs),
    // A dropped file's copy in uploads/ is kb's own already: never a second one in blobs/.
    copy: config.store_originals === 'copy' && st.size <= config.ingest.copy_max_bytes && !isUploadCopy(path, ctx.dataDir),
    existing,
  };
  if (detected.kind === 'audio') return prepareAudio(ctx, { ...facts, tags }, putBlob);
  if (!bytes) throw new KbError('INTERNAL', 'file bytes were not read');
  if (detected.kind === 'pdf') return preparePdf(ctx, { ...facts, tags, bytes });
  if (detected.kind === 'image') return prepareImage(ctx, { ...facts, tags, bytes });
  // A structured reader says what is wrong itself (readStructured: PARSE_FAILED, ENCRYPTED, TOO_LARGE).
  const parsed =
    detected.kind === 'structured'
      ? await ctx.parser.parseStructured({
          format: detected.format,
          data: bytes,
          name: basename(path),
          chunking: ctx.config.chunking,
          limits: zipLimitsOf(ctx.config.ingest),
        })
      : await parse(ctx, detected, decodeText(bytes).text, path);
  if (facts.copy) {
    if (bytes.length <= SMALL_FILE && blobs.putSync) blobs.putSync(hash, bytes);
    else await blobs.put(hash, bytes);
  }
  const doc = docRow(facts, {
    type: parsed.type,
    title: parsed.title,
    lang: parsed.lang,
    author: parsed.author ?? null,
    created: parsed.date ?? null,
  });
  const chunks = chunkIdsFrom(facts.docId, parsed.chunks, new Map(), 0);
  return {
    commit: async (t: Tables) => {
      await t.documents.upsert(doc);
      // Tags before chunks: the chunk trigger indexes the document's tags as filter tokens.
      await t.tags.add(facts.docId, normalizeTags([...parsed.tags, ...tags]));
      await t.chunks.replace(facts.docId, chunks);
      await t.originals.set({ doc_id: facts.docId, mode: facts.copy ? 'copy' : 'reference', blob: facts.copy ? hash : null, sha256: hash });
      await t.errors.clear(path);
      return existing ? 'updated' : 'added';
    },
  };
}
