// What the vector half keeps in, and reads of, the PostgreSQL store (store/vector-side.ts is SQLite's):
// the bindings in meta, the chunks to embed with their documents' filter columns, and the lock that
// makes one process at a time embed what is missing — another waits, then finds it done.
import type { VectorSidePort } from '../vector-port.js';
import { BINDING_KEY, type Binding, type BindingSlot, type FeedRow } from '../rows.js';
import { inTransaction, type PgPool } from './connect.js';
import { rows, value } from './tables/sql.js';

/** pg_advisory_lock's key for "embedding the chunks that have no vector" (migrate.ts and word-tops.ts hold others). */
const SYNC_LOCK = 0x6b62_0004;

const TAGS = `'|' || coalesce((SELECT string_agg(t.name, '|' ORDER BY t.name) FROM document_tags dt JOIN tags t ON t.id = dt.tag_id
  WHERE dt.doc_id = d.id), '') || '|'`;

export class PgVectorSide implements VectorSidePort {
  constructor(private readonly pool: PgPool) {}

  async binding(slot: BindingSlot = 'live'): Promise<Binding | null> {
    const v = await value<string>(this.pool, 'SELECT value FROM meta WHERE key = $1', [BINDING_KEY[slot]]);
    return v ? (JSON.parse(v) as Binding) : null;
  }

  async setBinding(slot: BindingSlot, b: Binding | null): Promise<void> {
    await setBinding(this.pool, slot, b);
  }

  async promote(built: Binding): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      await setBinding(c, 'live', built);
      await setBinding(c, 'pending', null);
    });
  }

  async markSynced(slot: BindingSlot, table: string, generation: number): Promise<void> {
    await inTransaction(this.pool, async (c) => {
      const v = await value<string>(c, 'SELECT value FROM meta WHERE key = $1 FOR UPDATE', [BINDING_KEY[slot]]);
      const b = v ? (JSON.parse(v) as Binding) : null;
      if (b?.table === table) await setBinding(c, slot, { ...b, synced_generation: generation });
    });
  }

  async generation(): Promise<number> {
    return (await value<number>(this.pool, 'SELECT generation FROM chunk_totals')) ?? 0;
  }

  async chunkCount(): Promise<number> {
    return (await value<number>(this.pool, 'SELECT chunks FROM chunk_totals')) ?? 0;
  }

  async chunkIds(): Promise<Set<string>> {
    return new Set((await rows<{ id: string }>(this.pool, 'SELECT id FROM chunks')).map((r) => r.id));
  }

  async feed(chunkIds: string[]): Promise<FeedRow[]> {
    if (chunkIds.length === 0) return [];
    return rows<FeedRow>(
      this.pool,
      `SELECT c.id, c.doc_id, c.heading, c.text, d.type, coalesce(d.lang, '') AS lang, d.path, ${TAGS} AS tags
       FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ANY ($1::text[])`,
      [chunkIds],
    );
  }

  async tagsOf(docId: string): Promise<string> {
    return (await value<string>(this.pool, `SELECT ${TAGS} FROM (SELECT $1::text AS id) d`, [docId])) ?? '||';
  }

  /** One process embeds at a time: the others wait here, then find the chunks it embedded. */
  async embedding<T>(fn: () => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [SYNC_LOCK]);
      try {
        return await fn();
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [SYNC_LOCK]);
      }
    } finally {
      client.release();
    }
  }
}

async function setBinding(sql: Parameters<typeof value>[0], slot: BindingSlot, b: Binding | null): Promise<void> {
  if (b) {
    await sql.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [
      BINDING_KEY[slot],
      JSON.stringify(b),
    ]);
  } else await sql.query('DELETE FROM meta WHERE key = $1', [BINDING_KEY[slot]]);
}
