// PostgreSQL migration 11: the passages the live vector table may lack, kept as a queue, as the tops
// keep theirs (migration 3). A sync after each note an editor added asked the store for every passage
// without a vector — an anti-join of all the passages and all the vectors, 180 ms of the server's CPU
// a note at 100,000 passages (npm run bench -- team), while the team searched. Now it reads the queue:
// a new passage is queued by the statement that writes it; every passage is queued again when another
// table goes live (a reindex, a model changed); store/postgres/vectors.ts takes off what was embedded.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 11,
  name: 'the queue of passages the live vector table may lack',
  sql: `
CREATE TABLE vector_queue (
  chunk_id text PRIMARY KEY REFERENCES chunks (id) ON DELETE CASCADE
);
INSERT INTO vector_queue SELECT id FROM chunks;

CREATE FUNCTION chunks_to_embed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO vector_queue SELECT id FROM added ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE TRIGGER chunks_vq AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_to_embed();

-- Another table live: every passage is queued for it, as the engine (the session's user may read fewer).
CREATE FUNCTION vectors_live_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  was text := current_setting('kb.user', true);
BEGIN
  IF TG_OP = 'INSERT' OR (OLD.value::jsonb ->> 'table') IS DISTINCT FROM (NEW.value::jsonb ->> 'table') THEN
    PERFORM set_config('kb.user', '@admin', true);
    INSERT INTO vector_queue SELECT id FROM chunks ON CONFLICT DO NOTHING;
    PERFORM set_config('kb.user', coalesce(was, ''), true);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER vectors_live AFTER INSERT OR UPDATE ON meta
  FOR EACH ROW WHEN (NEW.key = 'embedding.binding') EXECUTE FUNCTION vectors_live_changed();
`,
};
