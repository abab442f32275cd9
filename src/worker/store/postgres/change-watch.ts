// Another process's changes, heard on PostgreSQL: LISTEN on kb_changed (migration 6) on a connection
// taken from the pool for as long as the watch lasts. Notices come once per committed transaction
// that changed documents — an ingest of thousands sends thousands — so onChange is called at most once
// a second, after the first of a burst. A connection the server drops is taken again after a pause.
import type { PgClient, PgPool } from './connect.js';

const AT_MOST_EVERY_MS = 1000;
const RETRY_MS = 5000;

export async function watchChanges(pool: PgPool, onChange: () => void): Promise<() => Promise<void>> {
  let client: PgClient | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const notice = (): void => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      if (!stopped) onChange();
    }, AT_MOST_EVERY_MS);
    timer.unref();
  };
  const listen = async (): Promise<void> => {
    if (stopped) return;
    try {
      const c = await pool.connect();
      client = c;
      c.on('notification', notice);
      c.once('error', () => {
        c.release(true);
        if (client === c) client = null;
        if (!stopped) setTimeout(() => void listen(), RETRY_MS).unref();
      });
      await c.query('LISTEN kb_changed');
    } catch {
      if (!stopped) setTimeout(() => void listen(), RETRY_MS).unref();
    }
  };
  await listen();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    const c = client;
    client = null;
    if (c) {
      await c.query('UNLISTEN kb_changed').catch(() => undefined);
      c.release();
    }
  };
}
