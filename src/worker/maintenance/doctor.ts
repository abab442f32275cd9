// kb doctor: every check of what kb needs, each ok, warn (works, degraded) or fail (broken), with
// what to do about it.
import { access, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { unreadUploads } from '../uploads.js';
import { plural } from '../../shared/words.js';
import { SCHEMA_VERSION, type DoctorCheck, type DoctorReport } from '../../shared/wire.js';
import type { Core } from '../core.js';
import { docState } from '../store/doc-state.js';
import { schemaVersion } from '../store/db.js';
import { quickCheck, unreadablePassages, wordIndexCounts } from '../store/integrity.js';
import type { TopsUpkeep } from '../search/tops-upkeep.js';
import { pendingUpgrade } from './upgrade.js';
import type { VectorService } from '../vectors/service.js';
import type { PgStore } from '../store/postgres/pg-store.js';

type Outcome = string | { status: 'warn' | 'fail'; detail: string };

export async function runDoctor(core: Core, vectors: VectorService, tops: TopsUpkeep, configProblems: string[]): Promise<DoctorReport> {
  const { dataDir, store, blobs, config } = core;
  const checks: DoctorCheck[] = [];
  const check = (name: string, fn: () => Outcome): void => {
    try {
      const r = fn();
      checks.push(typeof r === 'string' ? { name, status: 'ok', detail: r } : { name, ...r });
    } catch (e) {
      checks.push({ name, status: 'fail', detail: (e as Error).message });
    }
  };
  checks.push(
    configProblems.length === 0
      ? { name: 'config', status: 'ok', detail: 'valid' }
      : { name: 'config', status: 'fail', detail: configProblems.join('; ') },
  );
  try {
    await access(dataDir, 2 /* W_OK */);
    checks.push({ name: 'data dir', status: 'ok', detail: `${dataDir} is writable` });
  } catch {
    checks.push({ name: 'data dir', status: 'fail', detail: `${dataDir} is not writable` });
  }
  const unread = core.readOnly ? [] : await unreadUploads(dataDir, async (p) => (await store.tables.documents.byPath(p)) !== undefined);
  checks.push(
    unread.length === 0
      ? { name: 'dropped files', status: 'ok', detail: 'every file dropped in a browser was read' }
      : {
          name: 'dropped files',
          status: 'warn',
          detail: `${plural(unread.length, 'file')} dropped in a browser ${unread.length === 1 ? 'was' : 'were'} never read (the drop was cut short: ${unread
            .slice(0, 3)
            .map((p) => basename(p))
            .join(', ')}${unread.length > 3 ? ', …' : ''}): kb doctor --fix reads them; kb gc deletes them`,
        },
  );
  const db = core.sqlite;
  if (db) {
    check('database integrity', () => {
      const r = quickCheck(db);
      return r === 'ok' ? `ok (schema ${schemaVersion(db)})` : { status: 'fail', detail: r };
    });
    check('full-text index', () => {
      const { chunks, indexed } = wordIndexCounts(db);
      if (indexed !== chunks) return { status: 'fail', detail: `${plural(chunks, 'chunk')} but ${indexed} in the word index` };
      return 'words and trigram indexes agree with the chunks';
    });
    check('passages', () => {
      const damaged = unreadablePassages(db);
      if (damaged.size === 0) return 'every passage reads back';
      const n = [...damaged.values()].reduce((a, b) => a + b, 0);
      return {
        status: 'fail',
        detail: `${plural(n, 'passage')} of ${plural(damaged.size, 'document')} cannot be read back: kb doctor --fix reads those documents again from their files`,
      };
    });
  } else if (store.kind === 'postgres') checks.push(...(await postgresChecks(store)));
  const docs = await store.tables.documents.list();
  const states = docs.map((d) => docState(d).status);
  const failed = states.filter((s) => s === 'failed').length;
  const waiting = states.filter((s) => s === 'waiting').length;
  const counted = [failed && `${failed} failed`, waiting && `${waiting} waiting`].filter(Boolean).join(', ');
  checks.push(
    failed + waiting === 0
      ? { name: 'documents', status: 'ok', detail: `${plural(docs.length, 'document')}, none failed or waiting` }
      : { name: 'documents', status: 'warn', detail: `${counted} of ${plural(docs.length, 'document')} (kb ls says why)` },
  );
  let missing = 0;
  for (const d of docs) {
    const o = await store.tables.originals.of(d.id);
    if (!o) continue;
    if (
      o.blob
        ? !(await blobs.has(o.blob))
        : !(await stat(d.path).then(
            () => true,
            () => false,
          ))
    )
      missing++;
  }
  checks.push(
    missing === 0
      ? { name: 'originals', status: 'ok', detail: 'every document can be opened' }
      : {
          name: 'originals',
          status: 'warn',
          detail: `${missing === 1 ? "1 document's original is" : `${missing} documents' originals are`} missing (moved or deleted, and not copied)`,
        },
  );
  checks.push(await ocrCheck(core));
  const upgrade = pendingUpgrade(core);
  if (upgrade)
    checks.push({
      name: 'index upgrade',
      status: 'warn',
      detail: `the index is being upgraded (passage ${upgrade.done.toLocaleString('en-US')} of ${upgrade.total.toLocaleString('en-US')}): the app and kb serve finish it in the background, kb doctor --fix now; searches work meanwhile`,
    });
  checks.push(await topsCheck(tops));
  checks.push(...(await vectorChecks(core, vectors)));
  const { audioChecks } = await import('../audio/checks.js');
  checks.push(...(await audioChecks(config.audio, dataDir, (await store.tables.transcripts.waiting()).size)));
  const { ollamaFor } = await import('../ollama.js');
  checks.push({ name: 'language model', ...(await ollamaFor(config.ask).status()) });
  return { schema_version: SCHEMA_VERSION, ok: checks.every((c) => c.status !== 'fail'), data_dir: dataDir, checks };
}

/** The PostgreSQL store: which server and schema, and whether the database can hold vectors. */
async function postgresChecks(store: PgStore): Promise<DoctorCheck[]> {
  const { ownsSchema, pgVersion } = await import('../store/postgres/migrate.js');
  const { vectorSupport, wordIndexBlocked } = await import('../store/postgres/pgvector.js');
  const { servedAsOwner } = await import('../store/postgres/server-role.js');
  const [version, vectors, blocked, role, owners] = await Promise.all([
    pgVersion(store.pool),
    vectorSupport(store.pool),
    wordIndexBlocked(store.pool),
    ownsSchema(store.pool),
    servedAsOwner(store.pool),
  ]);
  return [
    owners.length > 0
      ? {
          name: 'database role',
          status: 'warn',
          detail: `a kb serve connects as ${owners.join(', ')}, the owner of kb's tables: whoever holds its credentials can switch row-level security off. Serve as a role that owns nothing: CREATE ROLE kb_server LOGIN PASSWORD '…'; then kb --store <owner's URL> grant-server kb_server, and give kb serve kb_server's URL`,
        }
      : !role.owns
        ? {
            name: 'database role',
            status: 'ok',
            detail: `connects as ${role.me}, which owns nothing: row-level security cannot be switched off from here`,
          }
        : {
            name: 'database role',
            status: 'ok',
            detail: `connects as ${role.me}, the owner of kb's tables (right for its owner's commands; a team's kb serve connects as a role that owns nothing: kb grant-server)`,
          },
    { name: 'database', status: 'ok', detail: `PostgreSQL at ${store.where} (kb schema ${version})` },
    vectors.ready
      ? { name: 'pgvector', status: 'ok', detail: `pgvector ${vectors.version}` }
      : { name: 'pgvector', status: 'warn', detail: `${vectors.howTo}; search is lexical only until then` },
    blocked
      ? { name: 'word index', status: 'warn', detail: blocked }
      : { name: 'word index', status: 'ok', detail: 'word searches use the word index under row-level security' },
  ];
}

/** The best passages of common words and prefixes, ranked ahead of the search (search/tops.ts). */
async function topsCheck(tops: TopsUpkeep): Promise<DoctorCheck> {
  const name = 'common words';
  if (tops.error) {
    return {
      name,
      status: 'warn',
      detail: `ranking their best passages failed: ${tops.error}; searches of common words are slower (kb doctor --fix tries again)`,
    };
  }
  const { work, units, minChunks } = await tops.status();
  if (work === 'none' || work === 'clear')
    return { name, status: 'ok', detail: `none needed below ${minChunks} passages: every search scores all it matches` };
  if (work === 'current')
    return {
      name,
      status: 'ok',
      detail: `${plural(units, 'word and prefix', 'words and prefixes')} in many passages have their best ones ranked ahead of the search`,
    };
  return {
    name,
    status: 'warn',
    detail: `${work === 'build' ? 'their best passages are not ranked yet' : 'passages were added since their best were ranked'}: searches of common words are slower until the app or the next kb ingest catches up (kb doctor --fix does it now)`,
  };
}

async function ocrCheck(core: Core): Promise<DoctorCheck> {
  if (!core.config.ocr.enabled) return { name: 'OCR', status: 'ok', detail: 'off (ocr.enabled: false): images are skipped' };
  const { ocrLanguagesStatus } = await import('../ingest/ocr/ocr.js');
  const langs = ocrLanguagesStatus(core.config.ocr);
  const pending = (await core.store.tables.ocr.pending()).length;
  if (!langs.ok) return { name: 'OCR', status: 'warn', detail: `${langs.detail}; images and scanned pages wait until it is there` };
  if (pending > 0)
    return {
      name: 'OCR',
      status: 'warn',
      detail: `${plural(pending, 'page')} ${pending === 1 ? 'waits' : 'wait'} for OCR (read while the app, kb serve or kb watch runs, or by the next kb ingest); ${langs.detail}`,
    };
  const unreadable = await core.store.tables.ocr.unreadable();
  if (unreadable.pages > 0) {
    return {
      name: 'OCR',
      status: 'warn',
      detail: `${plural(unreadable.pages, 'page')} of ${plural(unreadable.docs, 'document')} need an OCR language that is not installed (kb ls says which; install it and add it to ocr.languages: kb reads them again); ${langs.detail}`,
    };
  }
  return { name: 'OCR', status: 'ok', detail: langs.detail };
}

async function vectorChecks(core: Core, vectors: VectorService): Promise<DoctorCheck[]> {
  const sem = await vectors.open().catch((e: unknown) => ({ unavailable: (e as Error).message }));
  if ('unavailable' in sem) return [{ name: 'embedding model', status: 'warn', detail: `${sem.unavailable}; search is lexical only` }];
  const model = vectors.model;
  const chunks = await core.store.tables.chunks.total();
  const count = await sem.store.count();
  const index = await sem.store.indexStats();
  const min = core.config.embedding.ann_min_rows;
  return [
    count === chunks
      ? {
          name: 'embedding model',
          status: 'ok',
          detail: `${model}: ${chunks === 1 ? 'the chunk has its vector' : `all ${chunks} chunks have vectors`}`,
        }
      : {
          name: 'embedding model',
          status: 'warn',
          detail: `${model}: ${plural(count, 'vector')} for ${plural(chunks, 'chunk')} (run: kb reindex, or any ingest, to bring them in step)`,
        },
    vectors.upkeepError
      ? { name: 'vector index', status: 'warn', detail: `updating the index failed: ${vectors.upkeepError}; searches are exact and slower` }
      : index
        ? {
            name: 'vector index',
            status: 'ok',
            detail: `${index.type} over ${index.indexed} vectors, ${index.unindexed} added since (searched exactly)`,
          }
        : count >= min
          ? { name: 'vector index', status: 'warn', detail: `${count} vectors and no index yet: the next ingest builds it` }
          : { name: 'vector index', status: 'ok', detail: `none needed below ${min} vectors: searches compare with every vector` },
  ];
}
