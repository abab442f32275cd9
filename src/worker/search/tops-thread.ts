// Entry point of the thread that updates the heavy units' tops (tops-update.ts): a first build reads
// and tokenises every chunk, which would hold the engine's message loop for a minute at a million.
import { parentPort, workerData } from 'node:worker_threads';
import { toErrorPayload } from '../../shared/errors.js';
import { openDb } from '../store/db.js';
import type { TopsModel } from './tops.js';
import { updateTops } from './tops-update.js';

const { file, model, chunks, minDf } = workerData as { file: string; model: TopsModel; chunks: number; minDf: number };
try {
  const db = openDb(file);
  try {
    parentPort?.postMessage({ result: updateTops(db, model, chunks, minDf) });
  } finally {
    db.close();
  }
} catch (e) {
  parentPort?.postMessage({ error: toErrorPayload(e) });
}
