// A line of a one-line dump (megabytes of minified code, a log on one line) is never drawn whole: a
// page drawing it took half a gigabyte. The viewer shows the stretch around the cited passage.
/** Past this, a line is shown in part: a one-line dump of megabytes drawn whole took half a gigabyte. */
export const LONG_LINE = 20_000;
/** How much of a long line is shown around the cited passage, or from its start. */
const AROUND = 2_000;

/**
 * What of a line to show: all of it, or — a line of a one-line dump, which many passages cite — the
 * stretch around this passage (found by its text) with the passage marked, else its start.
 */
export function lineShown(
  line: string,
  passage: string | null,
  /** The cited characters (1-based, inclusive) when the citation says them: exact where the text repeats. */
  cols: readonly [number, number] | null = null,
): { before: string; marked: string; after: string; cut: boolean } {
  if (line.length <= LONG_LINE) return { before: line, marked: '', after: '', cut: false };
  const probe = passage ? passage.trim().slice(0, 80) : '';
  const at = cols && cols[0] <= line.length ? cols[0] - 1 : probe ? line.indexOf(probe) : -1;
  if (at < 0) return { before: line.slice(0, AROUND), marked: '', after: '', cut: true };
  const end = Math.min(line.length, cols && cols[0] <= line.length ? cols[1] : at + (passage ?? '').trim().length);
  const from = Math.max(0, at - AROUND);
  return {
    before: (from > 0 ? '… ' : '') + line.slice(from, at),
    marked: line.slice(at, end),
    after: line.slice(end, Math.min(line.length, end + AROUND)),
    cut: end + AROUND < line.length,
  };
}
