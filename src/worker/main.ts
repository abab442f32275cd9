// The worker process: opens the engine and serves it over whichever channel its parent gave it: an
// Electron utilityProcess port (process.parentPort) or a Node child-process channel (process.send).
// `--data-dir DIR` (or KB_DATA_DIR) says which index. It announces `ready` once it can answer.
// `--searcher`: one of kb serve's search processes (cli/serve/search-router.ts): the index opened for
// searching only, nothing watched, nothing done in the background — the main process does all that.
import type { Engine } from './engine.js';
import { openEngine } from './open-engine.js';
import { errorFields, type Log, openLog } from './log.js';
import { KB_VERSION } from './version.js';
import type { CollectionWatcher } from './collections/watcher.js';
import { resolveSettings } from './config/load.js';
import { serveEngine, type Transport } from './loop.js';
import type { ServerMessage } from '../shared/api.js';
import { toErrorPayload } from '../shared/errors.js';
import { eventMessage } from '../shared/events.js';

interface ParentPort {
  postMessage(msg: unknown): void;
  on(event: 'message', handler: (e: { data: unknown }) => void): void;
}

function transport(): Transport {
  const port = (process as unknown as { parentPort?: ParentPort }).parentPort;
  if (port) return { send: (m) => port.postMessage(m), onMessage: (h) => port.on('message', (e) => h(e.data)) };
  if (process.send) {
    const send = process.send.bind(process);
    return { send: (m: ServerMessage) => void send(m), onMessage: (h) => process.on('message', h) };
  }
  throw new Error('the kb worker must be started by kb (no parent channel)');
}

const t = transport();
let watcher: CollectionWatcher | null = null;
const flag = process.argv.indexOf('--data-dir');
const searcher = process.argv.includes('--searcher');
try {
  const settings = await resolveSettings(flag >= 0 ? process.argv[flag + 1] : undefined);
  const log = openLog(settings.dataDir, 'worker', settings.config.log.level);
  log.info({ dataDir: settings.dataDir, version: KB_VERSION, node: process.version, searcher }, 'worker started');
  const engine = await openEngine({
    dataDir: settings.dataDir,
    config: settings.config,
    fromEnv: settings.fromEnv,
    configProblems: settings.problems,
    reconcile: !searcher,
    searchOnly: searcher,
    log,
  });
  serveEngine(engine, t, KB_VERSION, log);
  if (searcher) {
    t.send(eventMessage('ready', { data_dir: settings.dataDir }));
    process.on('disconnect', () => {
      engine.close();
      void log.close().finally(() => process.exit(0));
    });
  } else await serveAll(engine, settings.dataDir, log);
} catch (e) {
  t.send(eventMessage('failed', toErrorPayload(e)));
  process.exitCode = 1;
}

/** The main process: other processes' changes heard, collections watched, background work kept up. */
async function serveAll(engine: Engine, dataDir: string, log: Log): Promise<void> {
  // Another process's changes (a kb ingest beside the app; another server on a shared database): heard
  // from the moment the engine is ready, so a window never misses one.
  await engine
    .watchStore(() => t.send(eventMessage('changed', {})))
    .catch((e: unknown) =>
      log.warn(errorFields(e), 'watching the store for other processes failed: views refresh on their own actions only'),
    );
  t.send(eventMessage('ready', { data_dir: dataDir }));
  // Collections: what changed while kb was closed, then watched. Work left over last (a pass
  // interrupted, or a speech model installed while kb was closed). Searches answer meanwhile. Each
  // step's failure is logged and the next still runs.
  void (async () => {
    const reconciled = await engine
      .reconcileCollections()
      .catch((e: unknown) => log.error(errorFields(e), 'reconciling collections with the disk failed'));
    if (reconciled) for (const r of reconciled) log.info({ ...r }, 'collection reconciled');
    watcher = await engine.watchCollections({ onBatch: (e) => t.send(eventMessage('collections', e)) }).catch((e: unknown) => {
      log.error(errorFields(e), 'watching collections failed: changes are picked up on the next start');
      return null;
    });
    // What ingests left behind (scans waiting for OCR, audio waiting to be transcribed, passages
    // without vectors) is done now and whenever an ingest leaves more; every window hears how it goes.
    engine.keepUp((e) => t.send(eventMessage('background', e)));
  })();
  process.on('disconnect', () => {
    log.info({}, 'worker stopping: its host went away');
    void watcher?.close();
    engine.close();
    void log.close().finally(() => process.exit(0));
  });
}
