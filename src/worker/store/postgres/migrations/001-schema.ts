// PostgreSQL migration 1: the index as the SQLite store has it after its own fourteen, in PostgreSQL's
// terms. Words are a tsvector per passage that kb writes itself (its own tokenizer and stems, so both
// stores match the same words), weighted A title, B heading, D body, GIN-indexed. The statistics BM25
// needs — each word's document frequency, the chunk count and the fields' total lengths — are kept by
// statement triggers in the same transaction as the chunks, each statement's words locked in word
// order (a second writer waits; a deadlock between two statements is retried by the writer).
import type { Migration } from '../../migrations/migration.js';

export const migration: Migration = {
  version: 1,
  name: 'documents, chunks with weighted tsvectors, word statistics, tags, originals, collections',
  sql: `
CREATE TABLE meta (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE documents (
  id             text PRIMARY KEY,
  -- byte order ("C"), whatever the database's collation: a folder's documents are one range of paths
  path           text COLLATE "C" NOT NULL UNIQUE,
  root           text,
  title          text NOT NULL DEFAULT '',
  type           text NOT NULL,
  lang           text,
  content_hash   text NOT NULL,
  size           bigint NOT NULL,
  mtime          bigint NOT NULL,
  page_count     integer,
  duration       double precision,
  parser_version integer NOT NULL,
  status         text NOT NULL CHECK (status IN ('indexed', 'failed')),
  error          text,
  original       text NOT NULL CHECK (original IN ('copy', 'reference')),
  added_at       bigint NOT NULL,
  updated_at     bigint NOT NULL,
  author         text,
  created        text,
  -- the title's and the file name's words (kb's stems), for finding a document by its name
  names          tsvector NOT NULL DEFAULT ''
);
CREATE INDEX documents_hash ON documents (content_hash);
CREATE INDEX documents_type ON documents (type);
CREATE INDEX documents_copies ON documents (content_hash, size) WHERE original = 'copy';
CREATE INDEX documents_names ON documents USING gin (names);

-- rowid is never given twice (an identity), so "the chunks written since" is a range.
CREATE TABLE chunks (
  rowid           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id              text NOT NULL UNIQUE,
  doc_id          text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  ordinal         integer NOT NULL,
  heading         text NOT NULL,
  text            text NOT NULL,
  anchor          text NOT NULL,
  chunker_version integer NOT NULL,
  words           tsvector NOT NULL,
  -- tokens in the title, heading and body: BM25F normalises each field by its own length
  title_len       integer NOT NULL,
  heading_len     integer NOT NULL,
  body_len        integer NOT NULL
);
CREATE INDEX chunks_doc ON chunks (doc_id, ordinal);
CREATE INDEX chunks_words ON chunks USING gin (words);

-- Document frequency of every word the chunks hold.
CREATE TABLE word_stats (
  word   text COLLATE "C" PRIMARY KEY,
  chunks bigint NOT NULL
);

-- N and the fields' total lengths; generation counts every change of the chunks (caches compare it).
CREATE TABLE chunk_totals (
  one         boolean PRIMARY KEY DEFAULT true CHECK (one),
  chunks      bigint NOT NULL,
  title_len   bigint NOT NULL,
  heading_len bigint NOT NULL,
  body_len    bigint NOT NULL,
  generation  bigint NOT NULL
);
INSERT INTO chunk_totals VALUES (true, 0, 0, 0, 0, 0);

-- Adds signed counts to the words' document frequencies (rows locked in word order, so two writers
-- never hold each other's words) and the totals.
CREATE FUNCTION count_words(words text[], deltas bigint[], n bigint, t bigint, h bigint, b bigint)
RETURNS void LANGUAGE sql AS $$
  INSERT INTO word_stats AS w (word, chunks)
    SELECT u.word, u.delta FROM unnest(words, deltas) AS u (word, delta) ORDER BY u.word
    ON CONFLICT (word) DO UPDATE SET chunks = w.chunks + excluded.chunks;
  DELETE FROM word_stats WHERE word = ANY (words) AND chunks <= 0;
  UPDATE chunk_totals SET chunks = chunks + n, title_len = title_len + t, heading_len = heading_len + h,
    body_len = body_len + b, generation = generation + 1;
$$;

CREATE FUNCTION chunks_added() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE ws text[]; ds bigint[];
BEGIN
  SELECT array_agg(x.word ORDER BY x.word), array_agg(x.d ORDER BY x.word) INTO ws, ds
    FROM (SELECT u.lexeme AS word, count(*) AS d FROM added, unnest(added.words) AS u GROUP BY u.lexeme) x;
  PERFORM count_words(coalesce(ws, '{}'), coalesce(ds, '{}'), count(*), coalesce(sum(title_len), 0),
    coalesce(sum(heading_len), 0), coalesce(sum(body_len), 0)) FROM added;
  RETURN NULL;
END $$;

CREATE FUNCTION chunks_removed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE ws text[]; ds bigint[];
BEGIN
  SELECT array_agg(x.word ORDER BY x.word), array_agg(-x.d ORDER BY x.word) INTO ws, ds
    FROM (SELECT u.lexeme AS word, count(*) AS d FROM removed, unnest(removed.words) AS u GROUP BY u.lexeme) x;
  PERFORM count_words(coalesce(ws, '{}'), coalesce(ds, '{}'), -count(*), -coalesce(sum(title_len), 0),
    -coalesce(sum(heading_len), 0), -coalesce(sum(body_len), 0)) FROM removed;
  RETURN NULL;
END $$;

-- A chunk's words written again (its document's title changed): the difference is counted.
CREATE FUNCTION chunks_rewritten() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE ws text[]; ds bigint[];
BEGIN
  SELECT array_agg(x.word ORDER BY x.word), array_agg(x.d ORDER BY x.word) INTO ws, ds FROM (
    SELECT y.word, sum(y.d) AS d FROM (
      SELECT u.lexeme AS word, 1 AS d FROM added, unnest(added.words) AS u
      UNION ALL SELECT u.lexeme, -1 FROM removed, unnest(removed.words) AS u) y
    GROUP BY y.word HAVING sum(y.d) <> 0) x;
  PERFORM count_words(coalesce(ws, '{}'), coalesce(ds, '{}'), 0,
    (SELECT coalesce(sum(title_len), 0) FROM added) - (SELECT coalesce(sum(title_len), 0) FROM removed),
    (SELECT coalesce(sum(heading_len), 0) FROM added) - (SELECT coalesce(sum(heading_len), 0) FROM removed),
    (SELECT coalesce(sum(body_len), 0) FROM added) - (SELECT coalesce(sum(body_len), 0) FROM removed));
  RETURN NULL;
END $$;

CREATE TRIGGER chunks_ai AFTER INSERT ON chunks REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_added();
CREATE TRIGGER chunks_ad AFTER DELETE ON chunks REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_removed();
CREATE TRIGGER chunks_au AFTER UPDATE ON chunks REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION chunks_rewritten();

-- BM25F of a chunk for the query's words, computed where the chunk is (search/bm25.ts says the same in
-- JS): each field's count of a word weighted and normalised by that field's length, the counts added,
-- saturated, times the word's weight (its idf times how often the query says it). A prefix word
-- matches every word it begins. The chunk's vector is first cut down to the query's own words (the
-- vector less every other word: two ts_delete calls in C), which made a long question 18× faster
-- than reading every word of every candidate.
CREATE FUNCTION kb_bm25f(words tsvector, title_len integer, heading_len integer, body_len integer,
  q text[], qw float8[], qp boolean[], fw float8[], avg float8[], k1 float8, b float8)
RETURNS float8 LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  s float8 := 0;
  tf float8;
  u record;
  j integer;
  exact text[] := ARRAY(SELECT q[k] FROM generate_subscripts(q, 1) AS k WHERE NOT qp[k] ORDER BY k);
  exact_w float8[] := ARRAY(SELECT qw[k] FROM generate_subscripts(q, 1) AS k WHERE NOT qp[k] ORDER BY k);
  nt float8 := 1 - b + b * title_len / greatest(avg[1], 1);
  nh float8 := 1 - b + b * heading_len / greatest(avg[2], 1);
  nb float8 := 1 - b + b * body_len / greatest(avg[3], 1);
BEGIN
  FOR u IN SELECT * FROM unnest(ts_delete(words, tsvector_to_array(ts_delete(words, exact)))) LOOP
    tf := fw[1] * cardinality(array_positions(u.weights, 'A')) / nt
        + fw[2] * cardinality(array_positions(u.weights, 'B')) / nh
        + fw[3] * cardinality(array_positions(u.weights, 'D')) / nb;
    IF tf > 0 THEN s := s + exact_w[array_position(exact, u.lexeme)] * tf * (k1 + 1) / (tf + k1); END IF;
  END LOOP;
  IF true = ANY (qp) THEN
    FOR j IN 1 .. cardinality(q) LOOP
      CONTINUE WHEN NOT qp[j];
      FOR u IN SELECT * FROM unnest(words) AS x WHERE starts_with(x.lexeme, q[j]) LOOP
        tf := fw[1] * cardinality(array_positions(u.weights, 'A')) / nt
            + fw[2] * cardinality(array_positions(u.weights, 'B')) / nh
            + fw[3] * cardinality(array_positions(u.weights, 'D')) / nb;
        IF tf > 0 THEN s := s + qw[j] * tf * (k1 + 1) / (tf + k1); END IF;
      END LOOP;
    END LOOP;
  END IF;
  RETURN s;
END $$;

CREATE TABLE tags (
  id   integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL UNIQUE
);

CREATE TABLE document_tags (
  doc_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  tag_id integer NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, doc_id)
);
CREATE INDEX document_tags_doc ON document_tags (doc_id);

CREATE TABLE ingest_errors (
  id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  path    text COLLATE "C" NOT NULL,
  code    text NOT NULL,
  message text NOT NULL,
  at      bigint NOT NULL
);
CREATE INDEX ingest_errors_path ON ingest_errors (path);

-- The original bytes, content-addressed, so any server process can serve them.
CREATE TABLE blobs (
  sha256 text PRIMARY KEY,
  bytes  bytea NOT NULL
);

CREATE TABLE originals (
  doc_id text PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  mode   text NOT NULL CHECK (mode IN ('copy', 'reference')),
  blob   text,
  sha256 text NOT NULL
);
CREATE INDEX originals_blob ON originals (blob);

CREATE TABLE ocr_pages (
  doc_id          text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  page            integer NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
  confidence      double precision,
  error           text,
  unreadable_with text,
  PRIMARY KEY (doc_id, page)
);
CREATE INDEX ocr_pages_pending ON ocr_pages (status) WHERE status = 'pending';

CREATE TABLE transcripts (
  doc_id   text PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
  status   text NOT NULL CHECK (status IN ('waiting', 'pending', 'done', 'failed')),
  model    text,
  language text,
  segments text,
  error    text
);
CREATE INDEX transcripts_queue ON transcripts (status) WHERE status IN ('waiting', 'pending');

CREATE TABLE collections (
  name     text PRIMARY KEY,
  root     text NOT NULL UNIQUE,
  tags     text NOT NULL DEFAULT '[]',
  glob     text,
  added_at bigint NOT NULL
);
`,
};
