// The preview pane's content for a hit: which span to read (the cited lines with some around them, the
// cited stretch of a recording with a minute around it, else the cited page or region), and that span
// as lines — numbered in a file, timed in a transcript — with the cited ones marked, scrolled so the
// first marked line sits a third of the way down — or, for a citation longer than the pane, the first
// line holding a word the query matched.
import type { SearchHit, Span } from '../../shared/wire.js';

export interface PreviewLine {
  /** The file's line number (text, code, Markdown); null where a span has no lines of its own. */
  n: number | null;
  text: string;
  marked: boolean;
}

/** Seconds of a recording's transcript read around the cited stretch. */
const TIME_CONTEXT_S = 60;

/**
 * What `engine.get` reads for the preview: the cited lines and `context` more each side, the cited
 * stretch of a recording and a minute each side, or the cited span.
 */
export function previewTarget(hit: SearchHit, context: number): string {
  const c = hit.citation;
  // Characters of a very long line: those, not the megabytes around them.
  if (c.kind === 'lines' && c.col_start === undefined) return `${c.path}#L${Math.max(1, c.start - context)}-L${c.end + context}`;
  if (c.kind === 'time') return `${c.path}#t=${Math.max(0, c.start - TIME_CONTEXT_S)},${c.end + TIME_CONTEXT_S}`;
  return c.uri;
}

/** A transcript line's stretch, from its "[1:02.5–1:07.0]" opening (hours when there are any). */
export function lineTime(line: string): { start: number; end: number } | null {
  const m = /^\[([\d:.]+)–([\d:.]+)\]/.exec(line);
  if (!m) return null;
  const secs = (clock: string): number => clock.split(':').reduce((t, part) => t * 60 + Number(part), 0);
  return { start: secs(m[1]!), end: secs(m[2]!) };
}

/**
 * The span as lines, the hit's passage marked, `rows` of them from where the mark is best seen. Lines
 * of a file are cut at the pane's edge, as an editor shows them; a page's, a scan's or a transcript's
 * lines are paragraphs, so they are wrapped at `width` instead.
 */
export function previewLines(hit: SearchHit, span: Pick<Span, 'text' | 'citation'>, rows: number, width = Infinity): PreviewLine[] {
  const raw = span.text.replace(/\r\n?/g, '\n').split('\n');
  let lines: PreviewLine[];
  const c = hit.citation;
  if (c.kind === 'lines' && span.citation.kind === 'lines') {
    const first = span.citation.start;
    lines = raw.map((text, i) => ({ n: first + i, text, marked: first + i >= c.start && first + i <= c.end }));
  } else if (c.kind === 'time') {
    // Each transcript line says its time: the cited stretch is the lines inside it.
    lines = raw.map((text) => {
      const t = lineTime(text);
      return { n: null, text, marked: t !== null && t.end > c.start && t.start < c.end };
    });
  } else {
    lines = raw.map((text) => ({ n: null, text, marked: false }));
    markPassage(lines, hit.text);
  }
  if (lines.some((l) => l.n === null))
    lines = lines.flatMap((l) => (l.n === null ? wrap(l.text, width).map((text) => ({ ...l, text })) : [l]));
  return windowAround(lines, rows, hit.matched_terms);
}

/** Greedy word wrap at `width` characters; a word longer than a line is cut. */
export function wrap(text: string, width: number): string[] {
  if (text.length <= width) return [text];
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let w = word;
    while (w.length > width) {
      if (line) out.push(line);
      out.push(w.slice(0, width));
      w = w.slice(width);
      line = '';
    }
    if (!line) line = w;
    else if (line.length + 1 + w.length <= width) line += ` ${w}`;
    else {
      out.push(line);
      line = w;
    }
  }
  if (line) out.push(line);
  return out;
}

/** Marks the lines of `lines` that hold the passage (found by its opening words, whitespace aside). */
function markPassage(lines: PreviewLine[], passage: string): void {
  const norm = (s: string): string => s.replace(/\s+/g, ' ').trim();
  const joined: { at: number; line: number }[] = [];
  let text = '';
  lines.forEach((l, i) => {
    joined.push({ at: text.length, line: i });
    // A blank line adds nothing: the passage's own text has its paragraphs one space apart.
    if (norm(l.text)) text += `${norm(l.text)} `;
  });
  const head = norm(passage).slice(0, 60);
  if (!head) return;
  const start = text.indexOf(head);
  if (start < 0) return;
  const end = start + norm(passage).length;
  for (const [k, j] of joined.entries()) {
    const lineEnd = joined[k + 1]?.at ?? text.length;
    if (j.at < end && lineEnd > start) lines[j.line]!.marked = true;
  }
}

/** The window of `rows` lines: a long citation scrolled to its first line holding a matched word. */
function windowAround(lines: PreviewLine[], rows: number, words: string[]): PreviewLine[] {
  if (lines.length <= rows) return lines;
  const lower = words.map((w) => w.toLowerCase()).filter((w) => w.length > 0);
  const holds = (l: PreviewLine): boolean => l.marked && lower.some((w) => l.text.toLowerCase().includes(w));
  const firstMarked = Math.max(
    0,
    lines.findIndex((l) => l.marked),
  );
  const withWord = lines.findIndex(holds);
  // The citation's start when the word is in view from there, else the word's line.
  const first = withWord >= 0 && withWord - firstMarked >= rows - Math.floor(rows / 3) ? withWord : firstMarked;
  const from = Math.min(Math.max(0, first - Math.floor(rows / 3)), lines.length - rows);
  return lines.slice(from, from + rows);
}
