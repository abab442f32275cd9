// Entry point of a parse thread (worker_threads): parses what the pool sends, answers with chunks.
import { parentPort } from 'node:worker_threads';
import { parseText, type ParseRequest } from './parse.js';

parentPort?.on('message', (msg: { id: number; req: ParseRequest }) => {
  parseText(msg.req).then(
    (doc) => parentPort?.postMessage({ id: msg.id, doc }),
    (e: unknown) => parentPort?.postMessage({ id: msg.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
