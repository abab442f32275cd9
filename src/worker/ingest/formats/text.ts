// Notes and plain text: a small note is one chunk; a long text is packed from its paragraphs.
import { Lines, packBlocks, pieceAnchor, pieceTexts } from '../chunk/pack.js';
import type { ChunkingOptions, ParsedChunk, ParsedDocument } from '../types.js';

export function chunkPlainText(lines: Lines, opts: ChunkingOptions, heading = ''): ParsedChunk[] {
  const whole = lines.trim(1, lines.count);
  if (!whole) return [];
  const total = lines.slice(whole.startLine, whole.endLine).length;
  const pieces =
    total <= opts.note_max_chars ? [whole] : packBlocks(lines.paragraphs(whole.startLine, whole.endLine), (l) => lines.length(l), opts);
  return pieces.flatMap((p) =>
    pieceTexts(lines, p, opts).map((t) => ({
      text: t.text,
      heading,
      anchor: pieceAnchor(t),
    })),
  );
}

export function parseNote(text: string, fileName: string, opts: ChunkingOptions): ParsedDocument {
  const lines = new Lines(text);
  const firstLine = lines.lines.find((l) => l.trim() !== '')?.trim() ?? '';
  // A short first line reads as the note's title, as in most notes apps.
  const title = firstLine.length > 0 && firstLine.length <= 80 ? firstLine : fileName;
  return { type: 'note', title, lang: null, tags: [], chunks: chunkPlainText(lines, opts) };
}
