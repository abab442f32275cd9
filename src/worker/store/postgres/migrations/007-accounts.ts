// PostgreSQL migration 7: a team's accounts (issue 35). A user has a role and one token, kept only as
// its public half (which finds the row) and a salted scrypt hash of its secret half. A collection is
// readable by the users granted it (or everyone: @all). Who changed users, grants and collections is
// kept in the audit table; who searched or read what is not.
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 7,
  name: 'users, their tokens as hashes, grants of collections, the audit trail',
  sql: `
CREATE TABLE users (
  name       text PRIMARY KEY,
  role       text NOT NULL CHECK (role IN ('admin', 'editor', 'reader')),
  token_id   text NOT NULL UNIQUE,
  token_hash text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE collection_grants (
  collection text NOT NULL REFERENCES collections (name) ON DELETE CASCADE,
  -- a user's name, or @all
  grantee    text NOT NULL,
  PRIMARY KEY (collection, grantee)
);
CREATE INDEX collection_grants_grantee ON collection_grants (grantee);

CREATE TABLE audit (
  id     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at     bigint NOT NULL,
  actor  text NOT NULL,
  action text NOT NULL,
  target text NOT NULL,
  detail text
);
`,
};
