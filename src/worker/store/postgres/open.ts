// Opening the PostgreSQL store for the engine: connected, migrated, and pgvector looked for.
import { KbError } from '../../../shared/errors.js';
import type { Log } from '../../log.js';
import { isPostgresUrl, openPool, storeError } from './connect.js';
import { migratePg } from './migrate.js';
import { PgStore } from './pg-store.js';
import { vectorSupport } from './pgvector.js';

/**
 * The PostgreSQL store at `url`: connected as an ordinary role, its schema migrated. Without pgvector
 * it searches by words, and the log says how to add it.
 */
export async function openPostgres(url: string, log: Log): Promise<PgStore> {
  if (!isPostgresUrl(url)) throw new KbError('CONFIG_INVALID', `store.url must be a postgresql:// URL, not ${url}`);
  const pool = await openPool(url);
  try {
    const { from, to } = await migratePg(pool);
    if (from !== to) log.info({ from, to }, 'PostgreSQL schema migrated');
    const vectors = await vectorSupport(pool);
    if (!vectors.ready) log.warn({ howTo: vectors.howTo }, 'pgvector is missing: searching by words only');
    return new PgStore(pool, url);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw storeError(e, url);
  }
}
