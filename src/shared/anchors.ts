// The span a chunk covers inside its source (stored per chunk, without the path), one kind per
// citation grammar (docs/design.md, "Citations"): lines, a page (and characters of its text), a time
// range, a region of an image, paragraphs of a word-processor document, a slide, rows of a table, a
// W3C text fragment of a web page, an EPUB CFI, a message of a mailbox.
import { z } from 'zod';

const pos = z.number().int().positive();
/**
 * `#L12-L34`; inside a very long line (a one-line dump, minified code) also the characters, GitHub's
 * `#L1C4097-L1C8192`: 1-based, inclusive, the first on the start line and the last on the end line.
 */
const lines = z.object({ kind: z.literal('lines'), start: pos, end: pos, col_start: pos.optional(), col_end: pos.optional() });
const page = z.object({
  kind: z.literal('page'),
  page: pos,
  page_end: pos.optional(),
  char_start: z.number().int().nonnegative().optional(),
  char_end: z.number().int().nonnegative().optional(),
  /** Set when the page's text came from OCR: tesseract's confidence, 0–100. */
  confidence: z.number().optional(),
  /**
   * Read by OCR: where the passage's paragraphs stand on the page, as fractions of its width and
   * height from the top left — a scanned page has no text for a viewer to find the words in.
   */
  box: z
    .object({ x: z.number().min(0).max(1), y: z.number().min(0).max(1), w: z.number().min(0).max(1), h: z.number().min(0).max(1) })
    .optional(),
});
const time = z.object({ kind: z.literal('time'), start: z.number().nonnegative(), end: z.number().nonnegative() });
const region = z.object({
  kind: z.literal('region'),
  x: z.number().int().nonnegative(),
  y: z.number().int().nonnegative(),
  w: z.number().int().nonnegative(),
  h: z.number().int().nonnegative(),
  /** OCR confidence of the text in the region, 0–100. */
  confidence: z.number().optional(),
});
/** `#para=12-18`: block paragraphs of the document body, 1-based (.docx, .odt). */
const para = z.object({ kind: z.literal('para'), start: pos, end: pos });
/** `#slide=7` (.pptx, .odp). */
const slide = z.object({ kind: z.literal('slide'), slide: pos, slide_end: pos.optional() });
/** RFC 7111 `#row=12-40`, the header being row 1; a workbook's sheet as `#sheet=Name&row=12-40`. */
const rows = z.object({ kind: z.literal('rows'), start: pos, end: pos, sheet: z.string().optional() });
/** A W3C text fragment `#:~:text=start,end`: the passage's first words, and its last. */
const text = z.object({
  kind: z.literal('text'),
  start: z.string().min(1),
  end: z.string().min(1).optional(),
  /** Words just before the passage, where its first words occur earlier too (the directive's `prefix-`). */
  prefix: z.string().min(1).optional(),
  /** Words just after it, where its last words occur again before it ends (`-suffix`). */
  suffix: z.string().min(1).optional(),
});
/** An EPUB CFI `#epubcfi(/6/14!/4/2/10)` (a range CFI when the passage spans several blocks). */
const cfi = z.object({
  kind: z.literal('cfi'),
  cfi: z.string().min(1),
  /**
   * The chapter's number as a reader counts them (cover, title page and contents not counted); for the
   * label only — a CFI counts every file of the reading order. Absent for front matter.
   */
  chapter: z.number().int().positive().optional(),
});
/** `#msg=<Message-ID>`: one message of a mailbox (its ordinal, 1-based, when it has no Message-ID). */
const msg = z.object({ kind: z.literal('msg'), id: z.string().min(1) });

export const ANCHOR_SCHEMAS = { lines, page, time, region, para, slide, rows, text, cfi, msg };

export const AnchorSchema = z.discriminatedUnion('kind', [lines, page, time, region, para, slide, rows, text, cfi, msg]);
export type Anchor = z.infer<typeof AnchorSchema>;
