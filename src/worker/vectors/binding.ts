// Which embedding model the index's vectors belong to, recorded in SQLite's meta table so every process
// agrees: `live` is the table searches read; `pending` is the one `kb reindex` is building (kept across
// an interruption so the next reindex resumes it). A binding also remembers the chunk generation its
// table was last fully synced at, so reconciling an unchanged index costs two reads, not a diff.
import type { Db } from '../store/db.js';
import { readMeta, writeMeta } from '../store/meta.js';
import { inTransaction } from '../store/tx.js';

export interface Binding {
  model: string;
  fingerprint: string;
  table: string;
  /** chunks_generation when the table last held exactly the chunks' vectors. */
  synced_generation?: number;
}

export type BindingSlot = 'live' | 'pending';

const KEY: Record<BindingSlot, string> = { live: 'embedding.binding', pending: 'embedding.pending' };

export function readBinding(db: Db, slot: BindingSlot = 'live'): Binding | null {
  const value = readMeta(db, KEY[slot]);
  return value ? (JSON.parse(value) as Binding) : null;
}

export function writeBinding(db: Db, slot: BindingSlot, b: Binding | null): void {
  writeMeta(db, KEY[slot], b ? JSON.stringify(b) : null);
}

export { chunksGeneration } from '../store/db.js';

/** Records that `table` held exactly the chunks' vectors at `generation`, if it is still the table in `slot`. */
export function markSynced(db: Db, slot: BindingSlot, table: string, generation: number): void {
  inTransaction(db, () => {
    const b = readBinding(db, slot);
    if (b?.table === table) writeBinding(db, slot, { ...b, synced_generation: generation });
  });
}
