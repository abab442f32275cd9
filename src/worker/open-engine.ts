// Opening an engine on a data dir: the config checked (the environment folded in), the data dir made,
// the log opened, and the store chosen — a PostgreSQL database when store.url names one, else the data
// dir's own SQLite file (opened for searching only when kb may not write there).
import { access, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigSchema } from '../shared/config.js';
import { KbError } from '../shared/errors.js';
import { describeIssues } from '../shared/issues.js';
import { withEnvironment } from './config/env.js';
import { Core } from './core.js';
import { Engine, type OpenEngineOptions } from './engine.js';
import { openLog } from './log.js';
import { openDb } from './store/open-db.js';
import { SqliteStore } from './store/sqlite-store.js';

export async function openEngine(opts: OpenEngineOptions): Promise<Engine> {
  const parsed = ConfigSchema.safeParse(opts.config ?? {});
  if (!parsed.success) {
    throw new KbError('CONFIG_INVALID', describeIssues(parsed.error));
  }
  const dataDir = resolve(opts.dataDir);
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new KbError('DATA_DIR', `cannot create the data dir ${dataDir}: ${(e as Error).message}`);
  }
  const { config, fromEnv } = opts.fromEnv ? { config: parsed.data, fromEnv: opts.fromEnv } : withEnvironment(parsed.data);
  const log = opts.log ?? openLog(dataDir, opts.process ?? 'cli', config.log.level);
  // A team's store: the data dir still holds this machine's config, logs and models.
  if (config.store.url) {
    const { openPostgres } = await import('./store/postgres/open.js'); // the driver loads only for PostgreSQL
    const store = await openPostgres(config.store.url, log, config.store.read_url ?? null, config.search.deadline_ms);
    log.debug({ dataDir, store: store.where }, 'engine opened');
    return new Engine(new Core(dataDir, config, fromEnv, store, opts.searchOnly === true, log), opts);
  }
  // A data dir kb may not write (permissions, a read-only mount) is opened for searching only.
  const file = join(dataDir, 'kb.sqlite');
  const writable = await access(dataDir, 2 /* W_OK */).then(
    () =>
      access(file, 2).then(
        () => true,
        (e: NodeJS.ErrnoException) => e.code === 'ENOENT',
      ),
    () => false,
  );
  const readOnly = !writable || opts.searchOnly === true;
  const db = openDb(file, { readonly: readOnly && existsSync(file) });
  log.debug({ dataDir, readOnly }, 'engine opened');
  return new Engine(new Core(dataDir, config, fromEnv, new SqliteStore(db, file), readOnly, log), opts);
}
