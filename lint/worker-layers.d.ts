// Types of lint/worker-layers.js for the test that holds docs/architecture.md against it.
import type { Rule } from 'eslint';

export interface WorkerLayer {
  layer: string;
  members: string[];
}
export const WORKER_LAYERS: WorkerLayer[];
export const workerLayers: Rule.RuleModule;
