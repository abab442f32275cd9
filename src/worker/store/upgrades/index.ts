// The upgrades migrations leave behind (each file beside this one), in the order they run: packing
// needs the substrings upgrade's triggers; records, packed chunks. maintenance/upgrade.ts runs them
// a batch at a time in the background; store/open-db.ts does a small index's as it opens, under the
// migrations' write lock.
import type { Db } from '../db.js';
import type { UpgradeState } from './cursor.js';
import { ftsOrderUpgrade, upgradeFtsOrder } from './fts-order.js';
import { packingUpgrade, upgradePacking } from './packing.js';
import { recordsUpgrade, upgradeRecords } from './records.js';
import { substringsUpgrade, upgradeSubstrings } from './substrings.js';

export type { UpgradeState };

export interface Upgrade {
  state: (db: Db) => UpgradeState | null;
  step: (db: Db, rows: number) => UpgradeState | null;
  /** Rowids a batch covers in the background: ~40 ms of work, so a search waits no longer behind one. */
  batch: number;
}

export const UPGRADES: readonly Upgrade[] = [
  { state: substringsUpgrade, step: upgradeSubstrings, batch: 2000 },
  { state: packingUpgrade, step: upgradePacking, batch: 2000 },
  { state: ftsOrderUpgrade, step: upgradeFtsOrder, batch: 2000 },
  // Each chunk inflated and deflated against the dictionary: ~80 µs.
  { state: recordsUpgrade, step: upgradeRecords, batch: 500 },
];

/** The first upgrade still to do, and how far it is. */
export function nextUpgrade(db: Db): { step: Upgrade['step']; batch: number; state: UpgradeState } | null {
  for (const u of UPGRADES) {
    const state = u.state(db);
    if (state) return { step: u.step, batch: u.batch, state };
  }
  return null;
}

/** An upgrade with no more than this many rowids left is done when the index opens (~0.5 s). */
export const AT_OPEN = 20_000;

/** Whether the next upgrade has at most `rows` rowids left. */
export function smallUpgradePending(db: Db, rows: number): boolean {
  const n = nextUpgrade(db);
  return n !== null && n.state.end - n.state.cursor <= rows;
}

/** Runs every pending upgrade whose rowids left are at most `rows`, in order, up to the first bigger one. */
export function upgradeSmall(db: Db, rows: number): void {
  for (let n = nextUpgrade(db); n && n.state.end - n.state.cursor <= rows; n = nextUpgrade(db)) n.step(db, rows);
}
