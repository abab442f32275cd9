// The store's word index as the search reads it (candidates.ts over SQLite's FTS5, pg-word-source.ts
// over PostgreSQL), where its heavy units' tops are kept, and where the tops thread opens the store.
import type { Core } from '../core.js';
import type { TopsPort } from '../store/port.js';
import { PgWordIndex } from '../store/postgres/word-index.js';
import { PgWordTops } from '../store/postgres/word-tops.js';
import { WordTopsTable } from '../store/word-tops.js';
import { Candidates } from './candidates.js';
import { PgWordSource } from './pg-word-source.js';
import type { TopsStoreAt } from './tops-update.js';
import type { WordSource } from './word-source.js';

/** The store's word index as the search reads it, where its heavy units' tops are kept, and where a thread opens it. */
export function wordIndexOf(core: Core): { source: WordSource; tops: TopsPort; at: TopsStoreAt } {
  const s = core.store;
  if (s.kind === 'sqlite') {
    const tops = new WordTopsTable(s.db);
    return { source: new Candidates(s.db, core.config, tops), tops, at: { kind: 'sqlite', file: s.db.name } };
  }
  // Searches read the standby when there is one; the tops are kept up on the primary.
  const source = new PgWordSource(new PgWordIndex(s.readPool), core.config, new PgWordTops(s.readPool));
  return { source, tops: new PgWordTops(s.pool), at: { kind: 'postgres', url: s.connectionUrl() } };
}
