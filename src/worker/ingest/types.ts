import type { Anchor, DocType } from '../../shared/wire.js';

/** What a parser hands to the store: chunk text plus the exact span it came from. */
export interface ParsedChunk {
  text: string;
  /** Heading path ("Setup > Linux") or symbol path ("Store.get"), shown after § in citations; '' when none. */
  heading: string;
  anchor: Anchor;
}

export interface ParsedDocument {
  type: DocType;
  title: string;
  lang: string | null;
  tags: string[];
  chunks: ParsedChunk[];
  /** What the file says of itself (Office and EPUB metadata, a message's sender and date). */
  author?: string | null;
  /** ISO 8601. */
  date?: string | null;
}

export interface ChunkingOptions {
  target_chars: number;
  max_chars: number;
  min_chars: number;
  overlap_chars: number;
  note_max_chars: number;
  code_window_lines: number;
}
