// One pass over the user's paths: walk, prepare files ahead (read, detect, parse on the parse
// threads), and write each document in order, all or nothing. A failing file is recorded and the run
// goes on; what was indexed before stays as it was.
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { KbError, toErrorPayload } from '../../shared/errors.js';
import { SCHEMA_VERSION, type IngestProgress, type IngestSummary } from '../../shared/wire.js';
import { docState } from '../store/doc-state.js';
import type { Store } from '../store/port.js';
import { failedDocRow } from './doc-row.js';
import { ParsePool } from './parse-pool.js';
import { NOT_READ_NAMED } from './context.js';
import { type IngestContext, type Prepared, prepareFile } from './prepare.js';
import { admit, type Confinement, ownPlaces } from './confine.js';
import { refusedFolder } from './refused-folders.js';
import { normalizeTags } from './tags.js';
import { walk } from './walk.js';
import { searchesAhead } from '../search-traffic.js';

export { runOcr } from './ocr/ocr-pass.js';

export interface IngestOptions {
  tags?: string[];
  /** Called for an already indexed document that got new tags (its vectors carry tags too). */
  onRetag?: (docId: string) => void;
  onProgress?: (p: IngestProgress) => void;
  signal?: AbortSignal;
  /** How each file of the batch went, as counted in the summary (the OCR and audio passes may revise it). */
  onOutcome?: (path: string, outcome: FileOutcome) => void;
  /** A team user's bounds: files are read only inside them, at their real paths (confine.ts). */
  confine?: Confinement | undefined;
}

export type FileOutcome = 'added' | 'updated' | 'unchanged' | 'moved' | 'failed' | 'skipped';

export function createParsePool(): ParsePool {
  return new ParsePool();
}

/** Files read and parsed ahead of the one being written: overlaps file I/O with index writes. */
const READ_AHEAD = 8;
/**
 * Documents are written in batches: one outer transaction for up to this long, each document inside it
 * its own savepoint (better-sqlite3 nests transactions that way). A document stays all-or-nothing, a
 * failing one rolls back alone, and commits (and FTS5 segment flushes) happen a few times a second
 * instead of once per file. A crash loses at most the last batch, which the next run simply redoes.
 */
const BATCH_MS = 200;
/** The longest the ingest loop runs without letting the engine's message loop take a turn. */
const YIELD_MS = 8;

async function recordFailure(store: Store, path: string, root: string, err: KbError): Promise<void> {
  await store.write(async (t) => {
    const existing = await t.documents.byPath(path);
    await t.errors.record(path, err.code, err.message);
    // Keep the last good chunks searchable; the document shows what went wrong.
    if (existing) await t.documents.setError(existing.id, `${err.code}: ${err.message}`);
    else await t.documents.upsert(failedDocRow(path, root, `${err.code}: ${err.message}`));
  });
}

/**
 * What a list of files may say of one just written: a scan or a recording whose words are still to
 * be read is waiting, not added — it can still fail (no text on the page).
 */
async function finishedAs(
  store: Store,
  path: string,
  outcome: FileOutcome,
  message?: string,
): Promise<NonNullable<IngestProgress['finished']>> {
  if (outcome === 'added' || outcome === 'updated') {
    const doc = await store.tables.documents.byPath(path);
    const facts =
      doc && (doc.type === 'pdf' || doc.type === 'image' || doc.type === 'audio')
        ? await store.tables.documents.withFacts(doc.id)
        : undefined;
    if (facts && facts.chunk_count === 0 && (facts.ocr_pending > 0 || facts.transcript_status === 'pending'))
      return { path, outcome: 'waiting' };
    // A recording no speech model can transcribe yet has no words to find: not a plain "added".
    if (facts && facts.chunk_count === 0 && facts.transcript_status === 'waiting')
      return { path, outcome: 'waiting', message: docState(facts).reason ?? 'waiting for a speech model' };
  }
  return { path, outcome, ...(message ? { message } : {}) };
}

function emptySummary(): IngestSummary {
  return {
    schema_version: SCHEMA_VERSION,
    added: 0,
    updated: 0,
    unchanged: 0,
    moved: 0,
    failed: 0,
    skipped: [],
    errors: [],
    warnings: [],
    took_ms: 0,
  };
}

export async function ingestPaths(ctx: IngestContext, paths: string[], opts: IngestOptions = {}): Promise<IngestSummary> {
  const started = performance.now();
  const tags = normalizeTags(opts.tags ?? []);
  const summary = emptySummary();
  const files: { path: string; root: string }[] = [];
  const walkOpts = {
    ignore: ctx.config.ingest.ignore,
    followSymlinks: ctx.config.ingest.follow_symlinks,
    followOutside: ctx.config.ingest.follow_symlinks_outside,
    exclude: [ctx.dataDir],
  };
  const inputs: string[] = [];
  for (const p of paths) {
    const refused = (await stat(p).then(
      (s) => s.isDirectory(),
      () => false,
    ))
      ? refusedFolder(p, null)
      : null;
    if (!refused) inputs.push(p);
    else {
      summary.failed++;
      summary.errors.push({ path: resolve(p), code: 'INVALID_ARGUMENT', message: refused });
    }
  }
  const own = await ownPlaces(ctx.dataDir);
  const taken = new Set<string>();
  for await (const e of walk(inputs, walkOpts)) {
    if (e.kind === 'file') {
      const a = await admit(e, own, opts.confine);
      if ('skip' in a) summary.skipped.push({ path: e.path, reason: a.skip });
      else if ('refused' in a) {
        summary.failed++;
        summary.errors.push({ path: e.path, code: 'FORBIDDEN', message: a.refused });
      } else if (!taken.has(a.path)) {
        taken.add(a.path);
        files.push(a);
      }
    } else if (e.kind === 'skip') summary.skipped.push({ path: e.path, reason: e.reason });
    else {
      summary.failed++;
      summary.errors.push({ path: e.path, code: e.code, message: e.message });
    }
    opts.onProgress?.({ phase: 'scan', done: files.length, total: 0 });
  }
  let done = 0;
  const onProgress = opts.onProgress;
  const fileCtx: IngestContext = {
    ...ctx,
    since: ctx.since ?? Date.now(),
    ...(onProgress
      ? { onPages: (path: string, pages: number) => onProgress({ phase: 'ingest', done, total: files.length, path, pages }) }
      : {}),
  };
  const ahead: Promise<Prepared>[] = [];
  let next = 0;
  const batch = ctx.store.batch(BATCH_MS);
  // On SQLite every write runs on the engine's thread, where a search's steps would queue behind it: a
  // search in flight goes first. PostgreSQL writes on its server, and a team's steady stream of
  // searches would only slow an editor's ingest down.
  const searchesFirst = ctx.store.kind === 'sqlite' ? searchesAhead : (): undefined => undefined;
  let lastYield = performance.now();
  try {
    for (const f of files) {
      while (ahead.length < READ_AHEAD && next < files.length) {
        const n = files[next++]!;
        const p = prepareFile(fileCtx, n.path, n.root, tags, opts.onRetag);
        p.catch(() => undefined); // handled when its turn comes
        ahead.push(p);
      }
      const prepared = ahead.shift()!;
      opts.onProgress?.({ phase: 'ingest', done, total: files.length, path: f.path });
      if (opts.signal?.aborted) break;
      try {
        const p = await prepared;
        await searchesFirst();
        const r = 'skip' in p ? p : await batch.document((t) => p.commit(t));
        if (typeof r === 'object') summary.skipped.push({ path: f.path, reason: r.skip });
        else if (r === 'moved') {
          summary.moved++;
          summary.updated++;
        } else summary[r]++;
        const outcome = typeof r === 'object' ? 'skipped' : r;
        opts.onOutcome?.(f.path, outcome);
        if (onProgress)
          onProgress({
            phase: 'ingest',
            done: done + 1,
            total: files.length,
            finished: await finishedAs(ctx.store, f.path, outcome, typeof r === 'object' ? r.skip : undefined),
          });
      } catch (e) {
        const err = e instanceof KbError ? e : new KbError(toErrorPayload(e).code, toErrorPayload(e).message, { cause: e });
        summary.failed++;
        summary.errors.push({ path: f.path, code: err.code, message: err.message });
        opts.onOutcome?.(f.path, 'failed');
        onProgress?.({
          phase: 'ingest',
          done: done + 1,
          total: files.length,
          finished: { path: f.path, outcome: 'failed', message: `${err.code}: ${err.message}` },
        });
        try {
          await recordFailure(ctx.store, f.path, f.root, err);
        } catch {
          // the error is still in the summary even if the index could not take it
        }
      }
      done++;
      await searchesFirst(); // and before a commit, which flushes the full-text index (tens of ms)
      await batch.commitIfDue();
      // Files already read and parsed resolve at once, and awaiting them never lets timers or
      // messages in: give the engine's loop a turn every few ms, so searches answer meanwhile.
      if (performance.now() - lastYield > YIELD_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
      }
    }
  } finally {
    await batch.commit();
  }
  opts.onProgress?.({ phase: 'ingest', done, total: files.length });
  if (done < files.length) {
    summary.not_read = files.length - done;
    summary.not_read_paths = files.slice(done, done + NOT_READ_NAMED).map((f) => f.path);
  }
  summary.took_ms = Math.round(performance.now() - started);
  return summary;
}
