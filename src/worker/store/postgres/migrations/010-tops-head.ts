// PostgreSQL migration 10: the heavy words' tops ask, every search, for the newest passage's rowid —
// of the whole index, not of the passages the session's user may read. Under row-level security
// max(rowid) walked back through every newer passage the user may not see until it met one: 18 ms a
// search for a team's reader at 100,000 passages, the most expensive statement of a reader's search
// (npm run bench -- team). The function reads it as the engine: a number, no row.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 10,
  name: "the newest passage's rowid, whoever the session acts for",
  sql: `
CREATE FUNCTION kb_last_rowid() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  was text := current_setting('kb.user', true);
  last bigint;
BEGIN
  -- (A function's own SET clause would do this, but only a superuser may write one for kb.user.)
  PERFORM set_config('kb.user', '@admin', true);
  SELECT max(rowid) INTO last FROM chunks;
  PERFORM set_config('kb.user', coalesce(was, ''), true);
  RETURN last;
END $$;
`,
};
