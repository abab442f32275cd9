// Opening the PostgreSQL store for the engine: connected, migrated, and pgvector looked for.
import { fillInsides } from './insides.js';
import { KbError } from '../../../shared/errors.js';
import type { Log } from '../../log.js';
import { isPostgresUrl, openPool, storeError } from './connect.js';
import { migratePg } from './migrate.js';
import { PgStore } from './pg-store.js';
import { vectorSupport, wordIndexBlocked } from './pgvector.js';

/**
 * The PostgreSQL store at `url`: connected as an ordinary role, its schema migrated. Without pgvector
 * it searches by words, and the log says how to add it.
 */
export async function openPostgres(
  url: string,
  log: Log,
  readUrl: string | null = null,
  /** search.deadline_ms: a search's statement still running after this is stopped by the database. */
  searchDeadlineMs: number | null = null,
): Promise<PgStore> {
  if (!isPostgresUrl(url)) throw new KbError('CONFIG_INVALID', `store.url must be a postgresql:// URL, not ${url}`);
  if (readUrl !== null && !isPostgresUrl(readUrl))
    throw new KbError('CONFIG_INVALID', `store.read_url must be a postgresql:// URL, not ${readUrl}`);
  const pool = await openPool(url);
  try {
    const { from, to } = await migratePg(pool);
    if (from !== to) log.info({ from, to }, 'PostgreSQL schema migrated');
    await fillInsides(pool, log);
    const vectors = await vectorSupport(pool);
    if (!vectors.ready) log.warn({ howTo: vectors.howTo }, 'pgvector is missing: searching by words only');
    const blocked = await wordIndexBlocked(pool);
    if (blocked) log.warn({ howTo: blocked }, 'word searches cannot use the word index');
    // Searches read through a pool of their own: the standby's (which replays the primary's schema:
    // nothing is migrated there), else the primary's. An ingest holds the write pool's connections
    // through its transactions and its waits for the embedding lock; with one pool a team's searches
    // queued behind them (team bench: p95 253 ms with one pool of 8, 195 ms with two).
    const limits = { statementTimeoutMs: searchDeadlineMs };
    const readPool = readUrl
      ? await openPool(readUrl, limits).catch((e: unknown) => Promise.reject(storeError(e, readUrl)))
      : await openPool(url, { roleChecked: true, ...limits });
    return new PgStore(pool, url, readPool);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e instanceof KbError ? e : storeError(e, url);
  }
}
