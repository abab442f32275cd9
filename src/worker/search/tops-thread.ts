// Entry point of the thread that updates the heavy units' tops (tops-update.ts): a first build reads
// and tokenises every chunk, which would hold the engine's message loop for a minute at a million.
// The thread opens the store on a connection of its own.
import { parentPort, workerData } from 'node:worker_threads';
import { toErrorPayload } from '../../shared/errors.js';
import type { TopsModel } from './tops.js';
import { type TopsStoreAt, updateTops } from './tops-update.js';
import { runInBackground } from '../thread-priority.js';

runInBackground();

const { store, model, chunks, minDf, depth } = workerData as {
  store: TopsStoreAt;
  model: TopsModel;
  chunks: number;
  minDf: number;
  depth: number;
};

async function run(): Promise<void> {
  if (store.kind === 'sqlite') {
    const { openDb } = await import('../store/open-db.js');
    const { WordTopsTable } = await import('../store/word-tops.js');
    const db = openDb(store.file);
    try {
      parentPort?.postMessage({ result: await updateTops(new WordTopsTable(db), model, chunks, minDf, depth) });
    } finally {
      db.close();
    }
  } else {
    const { openPool } = await import('../store/postgres/connect.js');
    const { PgWordTops } = await import('../store/postgres/word-tops.js');
    const pool = await openPool(store.url, { max: 2 });
    try {
      parentPort?.postMessage({ result: await updateTops(new PgWordTops(pool), model, chunks, minDf, depth) });
    } finally {
      await pool.end();
    }
  }
}

run().catch((e: unknown) => parentPort?.postMessage({ error: toErrorPayload(e) }));
