// `kb migrate --to postgresql://…`: this data dir's SQLite index copied into a PostgreSQL database —
// documents, passages, tags, collections, OCR pages, transcripts, originals and vectors — without
// reading any file again: passages are copied as they were cut, vectors as they were embedded. Each
// document is written in one transaction, so an interrupted run leaves whole documents; the next run
// skips the documents already there and copies the vectors still missing. Nothing is deleted from
// either store: a database holding other documents keeps them.
import type { z } from 'zod';
import type { Anchor } from '../../shared/anchors.js';
import type { MigrateSchema } from '../../shared/cli-output.js';
import { KbError } from '../../shared/errors.js';
import { SCHEMA_VERSION, type ReindexProgress } from '../../shared/wire.js';
import type { Core } from '../core.js';
import type { Store } from '../store/port.js';
import type { VectorSidePort, VectorTables } from '../store/vector-port.js';
import type { PgStore } from '../store/postgres/pg-store.js';
import type { DocRow } from '../store/rows.js';

export type MigrateResult = z.infer<typeof MigrateSchema>;

/** Documents between two rounds of vector copying: an interruption loses at most these vectors' copies. */
const VECTOR_ROUND = 200;

interface VectorCopy {
  from: { side: VectorSidePort; tables: VectorTables };
  to: { side: VectorSidePort; tables: VectorTables };
}

export async function migrateStore(
  core: Core,
  url: string,
  opts: { onProgress?: (p: ReindexProgress) => void; signal?: AbortSignal } = {},
): Promise<MigrateResult> {
  const started = performance.now();
  const from = core.store;
  if (from.kind !== 'sqlite')
    throw new KbError('UNSUPPORTED', `kb migrate copies a data dir's own index; this one is already on ${from.where}`);
  const { openPostgres } = await import('../store/postgres/open.js');
  const to = await openPostgres(url, core.log);
  try {
    const { PgBlobs } = await import('../store/postgres/blobs.js');
    const blobs = new PgBlobs(to.pool, `${core.dataDir}/blobs`);
    const vectors = await vectorCopy(core, to);
    for (const c of await from.tables.collections.list()) {
      if (!(await to.tables.collections.list()).some((x) => x.name === c.name)) await to.tables.collections.add(c);
    }
    const paths = await from.tables.documents.paths();
    const result = { documents: 0, skipped: 0, chunks: 0, originals: 0, vectors: 0 };
    let round: string[] = [];
    const copyVectors = async (): Promise<void> => {
      if (vectors) result.vectors += await copyVectorsOf(vectors, from, round);
      round = [];
    };
    opts.onProgress?.({ done: 0, total: paths.length });
    for (const [i, path] of paths.entries()) {
      if (opts.signal?.aborted) break;
      const doc = (await from.tables.documents.byPath(path))!;
      if (await alreadyThere(from, to, doc)) result.skipped++;
      else {
        const copied = await copyDocument(core, from, to, blobs, doc);
        result.documents++;
        result.chunks += copied.chunks;
        result.originals += copied.original ? 1 : 0;
      }
      round.push(doc.id);
      if (round.length >= VECTOR_ROUND) await copyVectors();
      opts.onProgress?.({ done: i + 1, total: paths.length });
    }
    await copyVectors();
    const cancelled = opts.signal?.aborted === true;
    if (vectors && !cancelled) await bindVectors(vectors);
    return {
      schema_version: SCHEMA_VERSION,
      to: to.where,
      ...result,
      vectors_skipped: vectors ? null : await whyNoVectors(core, to),
      cancelled,
      took_ms: Math.round(performance.now() - started),
    };
  } finally {
    await to.close();
  }
}

/** Copied by an earlier run: the same content, as many passages. */
async function alreadyThere(from: Store, to: Store, doc: DocRow): Promise<boolean> {
  const there = await to.tables.documents.byId(doc.id);
  if (!there || there.content_hash !== doc.content_hash || there.updated_at !== doc.updated_at || there.status !== doc.status) return false;
  return (await to.tables.chunks.count(doc.id)) === (await from.tables.chunks.count(doc.id));
}

async function copyDocument(
  core: Core,
  from: Store,
  to: Store,
  blobs: { putFile(sha256: string, source: string): Promise<void> },
  doc: DocRow,
): Promise<{ chunks: number; original: boolean }> {
  const t = from.tables;
  const [chunks, tags, original, pages, transcript, errors] = await Promise.all([
    t.chunks.ofDoc(doc.id),
    t.tags.of(doc.id),
    t.originals.of(doc.id),
    t.ocr.of(doc.id),
    t.transcripts.of(doc.id),
    t.errors.of(doc.path),
  ]);
  // The bytes first (their own transaction, kept if the document's fails): the row that names them
  // never points at nothing.
  const copy = original?.blob ? await core.blobs.file(original.blob) : null;
  if (original?.blob && copy) await blobs.putFile(original.blob, copy);
  await to.write(async (w) => {
    await w.documents.upsert(doc);
    await w.chunks.replace(
      doc.id,
      chunks.map((c) => ({
        id: c.id,
        ordinal: c.ordinal,
        heading: c.heading,
        text: c.text,
        anchor: JSON.parse(c.anchor) as Anchor,
        chunker_version: c.chunker_version,
      })),
    );
    if (tags.length > 0) await w.tags.add(doc.id, tags);
    // A copy the data dir lost is not claimed: the document points at its file instead.
    if (original) await w.originals.set(original.blob && !copy ? { ...original, mode: 'reference', blob: null } : original);
    await w.ocr.restore(doc.id, pages);
    if (transcript) await w.transcripts.restore(doc.id, transcript);
    await w.errors.clear(doc.path);
    for (const e of errors) await w.errors.record(e.path, e.code, e.message);
  });
  return { chunks: chunks.length, original: copy !== null };
}

/** Both stores' vector halves, when this index has vectors and the database can hold them. */
async function vectorCopy(core: Core, to: PgStore): Promise<VectorCopy | null> {
  const { SqliteVectorSide } = await import('../store/vector-side.js');
  const db = core.sqlite!;
  const fromSide = new SqliteVectorSide(db);
  const live = await fromSide.binding();
  if (!live) return null;
  const { vectorSupport } = await import('../store/postgres/pgvector.js');
  if (!(await vectorSupport(to.pool)).ready) return null;
  const { PgVectorSide } = await import('../store/postgres/vector-side.js');
  const toSide = new PgVectorSide(to.pool);
  const bound = await toSide.binding();
  if (bound && bound.fingerprint !== live.fingerprint) return null; // the database's vectors are another model's
  const { lanceTables } = await import('../vectors/store.js');
  const { PgVectorTables } = await import('../store/postgres/vectors.js');
  return {
    from: { side: fromSide, tables: lanceTables(`${core.dataDir}/vectors`) },
    to: { side: toSide, tables: new PgVectorTables(to.pool) },
  };
}

/** These documents' vectors the database does not have yet. */
async function copyVectorsOf(v: VectorCopy, from: Store, docIds: string[]): Promise<number> {
  const live = (await v.from.side.binding())!;
  const source = await v.from.tables.open(live.table);
  const target = await v.to.tables.open(live.table);
  const wanted = (await Promise.all(docIds.map((id) => from.tables.chunks.ofDoc(id)))).flat().map((c) => c.id);
  const have = new Set((await target.rows(wanted)).map((r) => r.chunk_id));
  const rows = await source.rows(wanted.filter((id) => !have.has(id)));
  await target.add(rows);
  return rows.length;
}

/** The database's vectors are the live ones, synced at its own chunk generation (as if embedded there). */
async function bindVectors(v: VectorCopy): Promise<void> {
  const live = (await v.from.side.binding())!;
  const target = await v.to.tables.open(live.table);
  // Synced only when every passage has its vector; otherwise the next sync there embeds the rest.
  const whole = (await target.count()) === (await v.to.side.chunkCount());
  const { synced_generation: _, ...binding } = live;
  await v.to.side.setBinding('live', whole ? { ...binding, synced_generation: await v.to.side.generation() } : binding);
}

async function whyNoVectors(core: Core, to: PgStore): Promise<string | null> {
  const { SqliteVectorSide } = await import('../store/vector-side.js');
  if (!(await new SqliteVectorSide(core.sqlite!).binding())) return null; // none to copy
  const { vectorSupport } = await import('../store/postgres/pgvector.js');
  const support = await vectorSupport(to.pool);
  if (!support.ready) return `${support.howTo}; then run kb migrate again to copy the vectors`;
  return "the database's vectors were made with another model; kb reindex there makes them again";
}
