// Collections: folders kb keeps in sync (collections/ does the syncing).
import type { Db } from './db.js';
import type { CollectionRow } from './rows.js';
import type { CollectionsPort, Sync } from './port.js';

export type { CollectionRow } from './rows.js';

type StoredCollection = Omit<CollectionRow, 'tags'> & { tags: string };

export class Collections implements Sync<CollectionsPort> {
  private readonly addQ;
  private readonly listQ;
  private readonly forgetQ;

  constructor(db: Db) {
    this.addQ = db.prepare<[StoredCollection]>(
      'INSERT INTO collections (name, root, tags, glob, added_at) VALUES (@name, @root, @tags, @glob, @added_at)',
    );
    this.listQ = db.prepare<[], StoredCollection>('SELECT name, root, tags, glob, added_at FROM collections ORDER BY name');
    this.forgetQ = db.prepare<[string]>('DELETE FROM collections WHERE name = ?');
  }

  add(c: CollectionRow): void {
    this.addQ.run({ ...c, tags: JSON.stringify(c.tags) });
  }
  list(): CollectionRow[] {
    return this.listQ.all().map((r) => ({ ...r, tags: JSON.parse(r.tags) as string[] }));
  }
  forget(name: string): boolean {
    return this.forgetQ.run(name).changes > 0;
  }
}
