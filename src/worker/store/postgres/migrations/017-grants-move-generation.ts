// PostgreSQL migration 17: a change of who may read what moves the chunks' generation. Every process
// keeps its answers about a team user's words (pg-word-source.ts: whether a word is held, so
// corrected or still being typed) until the generation moves, which each search reads (at most 100 ms
// old): a grant revoked from the owner's command line, or through another server, left a reader told
// for a minute that a word of the revoked collection existed (an outsider's walk, issue 50).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 17,
  name: 'a grant, a revoke or a user removed moves the chunks generation',
  sql: `
CREATE FUNCTION kb_sight_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chunk_totals SET generation = generation + 1;
  RETURN NULL;
END $$;
CREATE TRIGGER grants_move_generation AFTER INSERT OR UPDATE OR DELETE ON collection_grants
  FOR EACH STATEMENT EXECUTE FUNCTION kb_sight_changed();
CREATE TRIGGER users_move_generation AFTER INSERT OR DELETE OR UPDATE OF role ON users
  FOR EACH STATEMENT EXECUTE FUNCTION kb_sight_changed();
`,
};
