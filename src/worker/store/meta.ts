// The meta table: small named records every process agrees on (which vector table is live, say).
import type { Db } from './db.js';

export function readMeta(db: Db, key: string): string | null {
  return db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value ?? null;
}

/** Sets the record, or deletes it when value is null. */
export function writeMeta(db: Db, key: string, value: string | null): void {
  if (value === null) db.prepare<[string]>('DELETE FROM meta WHERE key = ?').run(key);
  else
    db.prepare<[string, string]>('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(
      key,
      value,
    );
}
