// PostgreSQL migration 13: a grant to @all lets everyone read a collection, as the README says, and
// no more. kb_writable joined grants on `grantee IN (user, '@all')`, so an editor of any collection
// could re-index, re-tag, remove and upload into every @all collection (issue 50). Writing now needs
// a grant to the editor by name.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 13,
  name: 'a grant to @all is for reading only',
  sql: `
CREATE OR REPLACE FUNCTION kb_writable(c text) RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = kb AS $$
DECLARE
  me text := kb_actor();
BEGIN
  RETURN kb_sees_all() OR (c IS NOT NULL AND EXISTS (
    SELECT 1 FROM users u JOIN collection_grants g ON g.grantee = u.name
    WHERE u.name = me AND u.role = 'editor' AND g.collection = c));
END $$;
`,
};
