// The wire format every process and every `--json` consumer agrees on (docs/design.md, "Wire format").
// Fields may be added later, never removed or renamed.
import { FUSIONS } from './fusions.js';
import { MAX_TOP } from './search-limits.js';
import { z } from 'zod';
import { ComponentStatusSchema, type SCHEMA_VERSION, versioned } from './wire-base.js';

export { ComponentStatusSchema, SCHEMA_VERSION } from './wire-base.js';
export * from './wire-ingest.js';
export * from './wire-status.js';
import { DOC_TYPES, type DocType } from './doc-types.js';

/** A document's type: one of shared/doc-types.ts's table. */
export const DocTypeSchema = z.enum(DOC_TYPES);
export { DOC_TYPES, type DocType };

export const SEARCH_MODES = ['hybrid', 'lexical', 'vector'] as const;
export const SearchModeSchema = z.enum(SEARCH_MODES);
export type SearchMode = z.infer<typeof SearchModeSchema>;

export { AnchorSchema, type Anchor, ANCHOR_SCHEMAS } from './anchors.js';
import { ANCHOR_SCHEMAS } from './anchors.js';

/** A citation is an anchor with where it is: the URI that opens the span, the path, and labels. */
const where = {
  uri: z.string(),
  path: z.string(),
  section: z.string().optional(),
  /** For people: `setup.md · L12–34 § Setup › Linux`, `report.pdf · p. 7`. */
  label: z.string().optional(),
};
export const CitationSchema = z.discriminatedUnion('kind', [
  ANCHOR_SCHEMAS.lines.extend(where),
  ANCHOR_SCHEMAS.page.extend(where),
  ANCHOR_SCHEMAS.time.extend(where),
  ANCHOR_SCHEMAS.region.extend(where),
  ANCHOR_SCHEMAS.para.extend(where),
  ANCHOR_SCHEMAS.slide.extend(where),
  ANCHOR_SCHEMAS.rows.extend(where),
  ANCHOR_SCHEMAS.text.extend(where),
  ANCHOR_SCHEMAS.cfi.extend(where),
  ANCHOR_SCHEMAS.msg.extend(where),
]);
export type Citation = z.infer<typeof CitationSchema>;

export const RetrievalSchema = z.object({
  method: SearchModeSchema,
  lexical_rank: z.number().int().positive().nullable(),
  lexical_score: z.number().nullable(),
  vector_rank: z.number().int().positive().nullable(),
  vector_score: z.number().nullable(),
  fusion_score: z.number().nullable(),
  /** True for a document found by its file name or title rather than by a passage (it may have none yet). */
  by_name: z.boolean().optional(),
  /**
   * Present when a cross-encoder re-scored the hit: its logit, the sigmoid of it (score), and the rank
   * fusion gave the hit before. The hit's score is then w/fused_rank + (1 − w)·score, w 0.75 for the
   * first three fused ranks, 0.6 to rank 10, 0.4 after.
   */
  rerank: z.object({ score: z.number(), logit: z.number(), fused_rank: z.number().int().positive() }).optional(),
  explain: z
    .object({
      lexical_share: z.number().nullable(),
      vector_share: z.number().nullable(),
      /**
       * The lexical score s (shown as s / (1 + s)) is −bm25_raw × (1 + coverage_boost × coverage)
       * + proximity_boost × proximity + feedback. bm25_raw is BM25F of the query's own words, negative
       * as FTS5 gives it.
       */
      bm25_raw: z.number().nullable(),
      coverage: z.number().nullable(),
      proximity: z.number().nullable(),
      /** What pseudo-relevance feedback added (long questions only); null when it did not run. */
      feedback: z.number().nullable(),
      fts_query: z.string().nullable(),
    })
    .optional(),
});
export type Retrieval = z.infer<typeof RetrievalSchema>;

export const SearchHitSchema = z.object({
  rank: z.number().int().positive(),
  chunk_id: z.string(),
  doc_id: z.string(),
  score: z.number(),
  retrieval: RetrievalSchema,
  text: z.string(),
  snippet: z.string(),
  /** [start, end) character ranges of matched words within `snippet`. */
  snippet_highlights: z.array(z.tuple([z.number().int(), z.number().int()])),
  matched_terms: z.array(z.string()),
  citation: CitationSchema,
  /** The team server this hit came from (its address), when the app searches one beside this machine's index. */
  from: z.string().optional(),
  source: z.object({
    title: z.string(),
    type: DocTypeSchema,
    tags: z.array(z.string()),
    chunk_index: z.number().int().nonnegative(),
    /** 0 for a document found by name that has no passages yet (chunk_id is then ''). */
    total_chunks: z.number().int().nonnegative(),
    original: z.enum(['copy', 'reference']),
    /** Why a document found by name has nothing to show yet: waiting for a speech model, for OCR, … */
    reason: z.string().optional(),
  }),
});
export type SearchHit = z.infer<typeof SearchHitSchema>;

/** A query with some of its words changed, and which. */
const CorrectionSchema = z.object({ query: z.string(), words: z.array(z.object({ from: z.string(), to: z.string() })) });

export const SearchResultSchema = versioned({
  query: z.string(),
  mode: SearchModeSchema,
  results: z.array(SearchHitSchema),
  total_matches: z.number().int().nonnegative(),
  /** Present and true when total_matches is estimated (queries mixing rare and very common words). */
  total_matches_estimated: z.boolean().optional(),
  returned: z.number().int().nonnegative(),
  took_ms: z.number().nonnegative(),
  lexical: ComponentStatusSchema.optional(),
  vector: ComponentStatusSchema.optional(),
  /** Present when reranking was asked for: ok, or why the hits are in fused order. */
  rerank: ComponentStatusSchema.optional(),
  /** For people: how the query was read when not as typed (an FTS5 expression left unfinished). */
  notice: z.string().optional(),
  /**
   * Words of the query the index does not hold, corrected against its vocabulary (typos): the query
   * searched instead, and each word changed. `query` above stays the text as typed; search again with
   * `correct: false` for that text as it is.
   */
  corrected: CorrectionSchema.optional(),
  /**
   * Words of the query the index does not hold but the embedding model knows as words of its language
   * ("rest" in an index without it): searched as typed, so the meaning half finds what they mean, with
   * the index's nearest words offered here — the query with them (and any corrected) changed.
   */
  suggested: CorrectionSchema.optional(),
  /** Hybrid: no passage holds the query's words; every hit was found by meaning alone. */
  meaning_only: z.boolean().optional(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;

/** How many hits a search returns. */
const TopSchema = z.number().int().positive().max(MAX_TOP);

/** What a search takes: the RPC's params, the MCP search tool's input and the CLI's flags alike. */
export const SearchParamsSchema = z.object({
  query: z.string().describe('words, "a phrase", or a question'),
  mode: SearchModeSchema.default('hybrid').describe('hybrid (words and meaning), lexical or vector'),
  top: TopSchema.default(10).describe('how many hits'),
  tags: z.array(z.string().max(200)).max(64).default([]).describe('only documents carrying all these tags'),
  type: DocTypeSchema.optional().describe('only this document type'),
  path: z.string().max(1000).optional().describe('only paths matching this glob (* stays within a folder, ** crosses folders)'),
  lang: z.string().max(64).optional().describe('only documents in this language (en, ko, …) or programming language'),
  threshold: z.number().optional().describe('drop hits scoring below this'),
  prefix: z.boolean().default(false).describe('treat the last word as a prefix (search-as-you-type)'),
  explain: z.boolean().default(false).describe('include how each hit was ranked'),
  /** How hybrid mode combines the two lists (shared/fusions.ts). */
  fusion: z
    .enum(FUSIONS)
    .optional()
    .describe('hybrid: how the two halves combine (default: the search.fusion setting, adaptive): adaptive, rrf or convex'),
  rerank: z.boolean().optional().describe('re-score the best hits with the cross-encoder (default: the search.rerank setting)'),
  correct: z.boolean().default(true).describe('correct words the index does not hold (typos) against its vocabulary'),
});
export type SearchParams = z.input<typeof SearchParamsSchema>;
export type ResolvedSearchParams = z.output<typeof SearchParamsSchema>;

/**
 * A search as a caller sends it over the contract: the same, but a size left out stays left out, so
 * the engine's edge gives it the search.top setting (then 10).
 */
export const SearchCallSchema = SearchParamsSchema.extend({
  top: TopSchema.optional().describe('how many hits (default: the search.top setting)'),
});

/**
 * One vocabulary in every view. indexed: searchable; waiting: waiting for a speech model, OCR or
 * transcription, with nothing searchable yet; failed: the latest attempt to read it failed, or it has
 * no text at all. A document's `reason` says why.
 */
export const DOC_STATUSES = ['indexed', 'failed', 'waiting'] as const;
export type DocStatus = (typeof DOC_STATUSES)[number];

export const DocumentSummarySchema = z.object({
  doc_id: z.string(),
  path: z.string(),
  title: z.string(),
  type: DocTypeSchema,
  status: z.enum(DOC_STATUSES),
  /** Why it is waiting or failed, or what is missing from an indexed one; null when all is well. */
  reason: z.string().nullable(),
  error: z.string().nullable(),
  chunks: z.number().int().nonnegative(),
  tags: z.array(z.string()),
  size: z.number().int().nonnegative(),
  content_hash: z.string(),
  original: z.enum(['copy', 'reference']),
  original_available: z.boolean(),
  updated_at: z.string(),
  /** What the document says of itself (Office/EPUB metadata, a message's sender), when it says. */
  author: z.string().optional(),
  /** Its own date, ISO 8601 (written, published, sent). */
  created: z.string().optional(),
  /** A recording's length in seconds. */
  duration: z.number().nonnegative().optional(),
});
export type DocumentSummary = z.infer<typeof DocumentSummarySchema>;

/** Every document, as kb ls --json prints them (a page at a time: see documents.page). */
export const DocumentListSchema = versioned({ documents: z.array(DocumentSummarySchema) });

/** The orders the Library offers, and path (kb ls). */
export const LIBRARY_SORTS = ['title', 'type', 'chunks', 'size', 'status', 'updated', 'path'] as const;

/** A page of the Library: sorted, filtered and counted by the engine, never by downloading every document. */
export const DocumentPageParamsSchema = z
  .object({
    offset: z.number().int().nonnegative().max(10_000_000).optional(),
    limit: z.number().int().min(1).max(500),
    sort: z.enum(LIBRARY_SORTS).optional(),
    /** Descending. */
    down: z.boolean().optional(),
    /** Only the documents of this status. */
    status: z.enum(DOC_STATUSES).optional(),
    /** Words a title, a path or a tag contains (case-insensitively). */
    filter: z.string().max(500).optional(),
    /** Sorted by path: the documents after this one (kb ls pages through a big index this way, not by offset). */
    after: z.string().max(65_536).optional(),
  })
  .strict();
export type DocumentPageParams = z.infer<typeof DocumentPageParamsSchema>;

export const DocumentPageSchema = versioned({
  documents: z.array(DocumentSummarySchema),
  /** How many documents the filter and status leave: these are offset … offset + documents.length of them. */
  total: z.number().int().nonnegative(),
  /** Every document, and how many failed or wait (the Library's buttons), whatever the filter: with the first page. */
  counts: z
    .object({
      all: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      waiting: z.number().int().nonnegative(),
    })
    .optional(),
});
export type DocumentPage = z.infer<typeof DocumentPageSchema>;

/** Where the bytes of an indexed document are, for a host that serves them (never chosen by the UI). */
export const DocumentSourceSchema = versioned({
  doc_id: z.string(),
  type: DocTypeSchema,
  title: z.string(),
  /** The file to read: the stored copy when kb keeps one, else the original path. */
  file: z.string(),
  /** Serving the original, which changed since it was indexed: spans may not line up. */
  stale: z.boolean(),
  /** The original's file name (the stored copy has none): what says an image or a recording's format. */
  name: z.string().optional(),
  /** Where the user keeps the file (what "open in its app" and "show in folder" use). */
  path: z.string().optional(),
});
export type DocumentSource = z.infer<typeof DocumentSourceSchema>;

/** A structured document (Word, slides, a book, a table, a page, mail) rendered for the viewer at a citation. */
export const DocViewSchema = z.object({
  /** A whole sanitised HTML page, the cited blocks marked id="kb-hit"; hosts serve it under a no-script, no-network CSP. */
  html: z.string(),
  stale: z.boolean(),
});
export type DocView = z.infer<typeof DocViewSchema>;

export const RemoveResultSchema = versioned({
  removed: z.array(z.object({ doc_id: z.string(), path: z.string() })),
});
export type RemoveResult = z.infer<typeof RemoveResultSchema>;

export interface ErrorPayload {
  schema_version: typeof SCHEMA_VERSION;
  error: { code: string; message: string };
}

export const AskParamsSchema = z
  .object({
    question: z.string().trim().min(1, 'ask a question'),
    /** How many passages to retrieve as sources (default: the config's ask.top). */
    top: z.number().int().positive().max(50).optional(),
  })
  .strict();
export type AskParams = z.input<typeof AskParamsSchema>;

/** A numbered source of an answer: `[n]` in the answer text refers to it. */
export const AskSourceSchema = z.object({ n: z.number().int().positive(), hit: SearchHitSchema });
export type AskSource = z.infer<typeof AskSourceSchema>;

export const AskResultSchema = versioned({
  question: z.string(),
  /** The answer, with inline `[n]` citations; empty when refused. */
  answer: z.string(),
  /** The citations the answer uses: `n` → where it points. */
  citations: z.array(z.object({ n: z.number().int().positive(), citation: CitationSchema })),
  /** Every passage that was considered, numbered; shown as evidence even without an answer. */
  sources: z.array(AskSourceSchema),
  refused: z.boolean(),
  reason: z.string().nullable(),
  model: z.string().nullable(),
  /** Whether a language model could be reached, and if not, why (with what to do). */
  llm: ComponentStatusSchema,
  /** `[n]` the model wrote that name no source given to it: removed from `answer`. */
  invalid_citations: z.array(z.number().int()).default([]),
  /** Sentences of the answer that cite no source. */
  uncited_sentences: z.array(z.string()).default([]),
  /** Why the refusal gate decided as it did: the best passage's share of the question's words, and its strength. */
  evidence: z.object({ coverage: z.number(), strength: z.number(), similarity: z.number().nullable().optional() }).optional(),
  took_ms: z.number().nonnegative(),
});
export type AskResult = z.infer<typeof AskResultSchema>;

/** While an answer is made: first the numbered sources, then the answer's text as it streams. */
export const AskProgressSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sources'), sources: z.array(AskSourceSchema) }),
  z.object({ kind: z.literal('token'), text: z.string() }),
]);
export type AskProgress = z.infer<typeof AskProgressSchema>;

/** `kb get` / the MCP `get` tool: the text of a cited span. */
export const SpanSchema = versioned({
  doc_id: z.string(),
  title: z.string(),
  type: DocTypeSchema,
  /** The span read, as a citation (the whole document when no fragment was given). */
  citation: CitationSchema,
  text: z.string(),
  /** Cut at the size cap (max_chars). */
  truncated: z.boolean(),
  /** Read from the original, which changed since it was indexed: lines may not line up. */
  stale: z.boolean(),
});
export type Span = z.infer<typeof SpanSchema>;

/** What a search can be narrowed to — the types and tags of the indexed documents — and how many documents there are. */
export const FacetsSchema = versioned({
  /** In the document-type table's order. */
  types: z.array(DocTypeSchema),
  /** The most used first; tags only failed documents carry are left out (a filter that could find nothing). */
  tags: z.array(z.object({ name: z.string(), documents: z.number().int().nonnegative() })),
  /** Documents searchable or waiting, and those that failed (the Library says why). */
  documents: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
export type Facets = z.infer<typeof FacetsSchema>;
