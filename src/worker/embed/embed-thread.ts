// Entry point of the embedding thread (worker_threads). onnxruntime-node's run() holds the calling
// thread for the whole inference (~150 ms a batch), and tokenising a round of chunks takes tens of ms:
// done here, the engine's message loop stays free while an ingest embeds.
import { parentPort, workerData } from 'node:worker_threads';
import { toErrorPayload } from '../../shared/errors.js';
import { Embedder } from './embedder.js';
import type { EmbeddingSpec } from './spec.js';
import { runInBackground } from '../thread-priority.js';
import { pauseForSearches } from '../search-traffic.js';

runInBackground();

const { dir, spec, searches } = workerData as { dir: string; spec: EmbeddingSpec; searches: Int32Array };
// Between two inference runs, a search in flight on the engine's thread goes first.
const ready = Embedder.load(dir, spec).then((e) => {
  e.betweenRuns = () => pauseForSearches(searches);
  return e;
});
ready.catch(() => undefined); // reported with the first request

parentPort?.on('message', (msg: { id: number; texts: string[]; kind: 'query' | 'passage' }) => {
  ready
    .then((e) => e.embed(msg.texts, msg.kind))
    .then(
      (vectors) =>
        parentPort?.postMessage(
          { id: msg.id, vectors },
          vectors.map((v) => v.buffer as ArrayBuffer),
        ),
      (e: unknown) => parentPort?.postMessage({ id: msg.id, error: toErrorPayload(e) }),
    );
});
