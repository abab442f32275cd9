// Collections on PostgreSQL (see store/collections.ts).
import type { CollectionsPort } from '../../port.js';
import type { CollectionRow } from '../../rows.js';
import { rows, type Sql } from './sql.js';

export class PgCollections implements CollectionsPort {
  constructor(private readonly sql: Sql) {}

  async add(c: CollectionRow): Promise<void> {
    await this.sql.query('INSERT INTO collections (name, root, tags, glob, added_at) VALUES ($1, $2, $3, $4, $5)', [
      c.name,
      c.root,
      JSON.stringify(c.tags),
      c.glob,
      c.added_at,
    ]);
  }
  async list(): Promise<CollectionRow[]> {
    const r = await rows<Omit<CollectionRow, 'tags'> & { tags: string }>(
      this.sql,
      'SELECT name, root, tags, glob, added_at FROM collections ORDER BY name COLLATE "C"',
    );
    return r.map((c) => ({ ...c, tags: JSON.parse(c.tags) as string[] }));
  }
  async forget(name: string): Promise<boolean> {
    return ((await this.sql.query('DELETE FROM collections WHERE name = $1', [name])).rowCount ?? 0) > 0;
  }
}
