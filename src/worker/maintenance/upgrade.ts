// Upgrades of an index's data that a migration left behind (store/upgrades/): done a batch at a time
// on the engine's thread, yielding between batches so searches go on, and resumable — each batch
// commits its progress with it. A new or small index is upgraded when it opens; a big one by a
// long-lived host (the app, kb serve, kb watch) in the background, or by kb doctor --fix.
import type { Core } from '../core.js';
import { substringsUpgrade, upgradeSubstrings } from '../store/upgrades/substrings.js';

/** Rowids a batch covers: ~40 ms of work, so a search waits no longer behind one. */
const BATCH = 2000;
/** An upgrade with no more than this many rowids left is done when the index opens (~0.5 s). */
const AT_OPEN = 20_000;

export interface UpgradeProgress {
  /** Rowids done, of the rowids the index held when the upgrade began. */
  done: number;
  total: number;
}

/** How far the pending upgrade is, or null when there is none. */
export function pendingUpgrade(core: Core): UpgradeProgress | null {
  const s = substringsUpgrade(core.db);
  return s ? { done: s.cursor, total: s.end } : null;
}

/** Finishes a pending upgrade at once if it is small (a new index has nothing to copy). */
export function upgradeIfSmall(core: Core): void {
  if (core.readOnly) return;
  const s = substringsUpgrade(core.db);
  if (!s || s.end - s.cursor > AT_OPEN) return;
  while (upgradeSubstrings(core.db, AT_OPEN) !== null);
}

/** Runs the pending upgrade to its end; false when there was none. `stopped` ends it between batches. */
export async function upgradeIndex(
  core: Core,
  onProgress: (p: UpgradeProgress) => void = () => undefined,
  stopped = () => false,
): Promise<boolean> {
  if (core.readOnly || substringsUpgrade(core.db) === null) return false;
  for (;;) {
    if (stopped()) return false;
    const s = upgradeSubstrings(core.db, BATCH);
    if (!s) break;
    onProgress({ done: s.cursor, total: s.end });
    await new Promise((r) => setImmediate(r));
  }
  core.wordsChanged();
  return true;
}
