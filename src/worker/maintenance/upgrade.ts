// Upgrades of an index's data that a migration left behind (store/upgrades/): done a batch at a time
// on the engine's thread, yielding between batches so searches go on, and resumable — each batch
// commits its progress with it. A new or small index is upgraded when it opens; a big one by a
// long-lived host (the app, kb serve, kb watch) in the background, or by kb doctor --fix.
import type { BackgroundEvent } from '../../shared/events.js';
import type { Core } from '../core.js';
import { errorFields } from '../log.js';
import { AT_OPEN, nextUpgrade as next, UPGRADES, upgradeSmall } from '../store/upgrades/index.js';

export interface UpgradeProgress {
  /** Rowids done, of the rowids the pending upgrades had left (a chunk counts once per upgrade). */
  done: number;
  total: number;
}

/** How far the pending upgrade is, or null when there is none. */
export function pendingUpgrade(core: Core): UpgradeProgress | null {
  if (!core.sqlite) return null;
  const n = next(core.sqlite);
  return n ? { done: n.state.cursor, total: n.state.end } : null;
}

/**
 * Finishes the pending upgrades at once if they are small. Opening the index did so already
 * (store/open-db.ts) unless that failed: then this tries again and says why.
 */
export function upgradeIfSmall(core: Core): void {
  const db = core.sqlite;
  if (core.readOnly || !db) return;
  try {
    upgradeSmall(db, AT_OPEN);
  } catch (e) {
    // A full disk, say: the index stays as it was (each batch is a transaction) and is searched as
    // it is; the next open tries again. Opening must not fail for it.
    core.log.warn(errorFields(e), 'upgrading the index failed; it is searched as it is');
  }
}

/** Runs the pending upgrades to their end; false when there were none. `stopped` ends them between batches. */
export async function upgradeIndex(
  core: Core,
  onProgress: (p: UpgradeProgress) => void = () => undefined,
  stopped = () => false,
): Promise<boolean> {
  // Upgrades rewrite the SQLite store's own index; PostgreSQL's schema only migrates.
  const db = core.sqlite;
  if (core.readOnly || !db || next(db) === null) return false;
  const started = Date.now();
  // Progress over every upgrade left, in rowids: each counts what was left of it when this began.
  const left = UPGRADES.map((u) => u.state(db)).map((st) => (st ? st.end - st.cursor : 0));
  const total = left.reduce((a, b) => a + b, 0);
  for (let n = next(db); n; n = next(db)) {
    if (stopped()) return false;
    const s = n.step(db, n.batch);
    const now = UPGRADES.map((u) => u.state(db)).map((st) => (st ? st.end - st.cursor : 0));
    if (s)
      onProgress({
        done:
          total -
          Math.min(
            total,
            now.reduce((a, b) => a + b, 0),
          ),
        total,
      });
    await new Promise((r) => setImmediate(r));
  }
  core.wordsChanged();
  core.log.info({ ms: Date.now() - started }, 'index upgraded');
  return true;
}

/** A long-lived host's upgrade of the index, told as `background` events: running, done, or failed and why. */
export function upgradeInBackground(core: Core, onEvent: (e: BackgroundEvent) => void, closed: () => boolean): Promise<void> {
  return upgradeIndex(core, (p) => onEvent({ task: 'upgrading', phase: 'running', ...p }), closed).then(
    (did) => {
      if (did) onEvent({ task: 'upgrading', phase: 'done', done: 1, total: 1 });
    },
    (e: unknown) => {
      if (closed()) return;
      core.log.error(errorFields(e), 'upgrading the index failed');
      onEvent({ task: 'upgrading', phase: 'failed', done: 0, total: 0, message: (e as Error).message });
    },
  );
}
