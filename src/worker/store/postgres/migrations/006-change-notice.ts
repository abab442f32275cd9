// PostgreSQL migration 6: a notice on the kb_changed channel when documents come, go or change, sent
// when their transaction commits (NOTIFY is transactional, and one per transaction), so a running app
// on another machine refreshes what it shows (store/postgres/change-watch.ts).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 6,
  name: 'a notice on kb_changed when documents change',
  sql: `
CREATE FUNCTION documents_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('kb_changed', '');
  RETURN NULL;
END $$;

CREATE TRIGGER documents_notice AFTER INSERT OR UPDATE OR DELETE ON documents
  FOR EACH STATEMENT EXECUTE FUNCTION documents_changed();
`,
};
