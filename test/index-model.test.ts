// The model-based test of the index (test/support/index-model.ts): a short seeded sequence of what
// people do on each store, every invariant checked after every step. `npm run bench -- soak` runs long ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../src/worker/index.js';
import { engineIn, tempDir } from './helpers.js';
import { IndexModel } from './support/index-model.js';
import { type PgCluster, postgresAvailable, startCluster } from './support/postgres.js';

const STEPS = 40;

describe('the index against its model', () => {
  it('SQLite: every step leaves every document whole, found by its word, and kb doctor content', { timeout: 600_000 }, async () => {
    const dir = await tempDir();
    const report = await new IndexModel({ seed: 49, steps: STEPS, dir, open: (d) => engineIn(d), childEnv: {} }).run();
    expect(report.steps).toBe(STEPS);
    expect(report.ops.big).toBe(1);
    expect(report.documents).toBeGreaterThan(20);
  });

  it('SQLite, from an index an older kb wrote: the same while it is upgraded in the background', { timeout: 600_000 }, async () => {
    const dir = await tempDir();
    // Past what is upgraded as the index opens: the upgrades run a batch at a time under the steps.
    const report = await new IndexModel({ seed: 7, steps: 20, dir, open: (d) => engineIn(d), childEnv: {}, old: 21_000 }).run();
    expect(report.steps).toBe(20);
    expect(report.ops['keep-up']).toBeGreaterThanOrEqual(1);
  });
});

describe.skipIf(!postgresAvailable())('the index against its model on PostgreSQL', () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(() => cluster?.stop());

  it('PostgreSQL: the same, with the same seed', { timeout: 600_000 }, async () => {
    const url = await cluster.database();
    const dir = await tempDir();
    const report = await new IndexModel({
      seed: 49,
      steps: STEPS,
      dir,
      open: (d) => openEngine({ dataDir: d, config: { store: { url } } }),
      childEnv: { KB_STORE: url },
    }).run();
    expect(report.steps).toBe(STEPS);
    expect(report.documents).toBeGreaterThan(20);
  });
});
