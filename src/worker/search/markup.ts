// Which characters of a Markdown passage are syntax, not prose: snippets leave them out, so a hit
// reads "Setup Install git with apt-get" rather than "## Setup **Install** [git](https://…)". A mask,
// not a rewrite, so every highlight offset into the stored text stays valid. Line-level patterns, not
// the mdast parser ingest uses: this runs for every Markdown hit of every keystroke (microseconds,
// where a parse costs a fraction of a millisecond per passage).

/** 0: prose, shown; DROP: syntax, left out; SPACE: syntax that separates words (table pipes, line markers). */
export const DROP = 1;
export const SPACE = 2;

function fill(mask: Uint8Array, from: number, to: number, v: number): void {
  for (let i = Math.max(0, from); i < Math.min(mask.length, to); i++) mask[i] = v;
}

/** The syntax mask of a Markdown passage (its text as chunked: headings, lists, tables, links…). */
export function markdownMask(text: string): Uint8Array {
  const mask = new Uint8Array(text.length);
  let at = 0;
  let inFence = false;
  const lines = text.split('\n');
  // Front matter at the very start of a passage: all of it.
  const close = lines[0]?.trim() === '---' ? lines.findIndex((l, k) => k > 0 && /^(---|\.\.\.)\s*$/.test(l)) : -1;
  const frontEnd = close > 0 ? lines.slice(0, close + 1).reduce((s, l) => s + l.length + 1, 0) : 0;
  fill(mask, 0, frontEnd, SPACE);
  lines.forEach((line) => {
    const start = at;
    at += line.length + 1;
    if (start < frontEnd) return;
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      inFence = !inFence;
      fill(mask, start, start + line.length, SPACE); // the fence and its language tag
      return;
    }
    if (inFence) return; // code keeps its text as is
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return fill(mask, start, start + line.length, SPACE); // a rule
    if (/^\s*\|?(\s*:?-{2,}:?\s*\|)+\s*:?-*:?\s*\|?\s*$/.test(line)) return fill(mask, start, start + line.length, SPACE); // table rule
    // Line-start markers: heading hashes, quote marks, list bullets.
    const lead = /^(\s*(?:>\s*)*)(#{1,6}\s+|[-*+]\s+(?:\[[ xX]\]\s+)?)?/.exec(line)!;
    fill(mask, start, start + lead[0].length, SPACE);
    // A closing run of hashes on a heading line.
    if (lead[2]?.startsWith('#')) {
      const closing = /\s+#+\s*$/.exec(line);
      if (closing) fill(mask, start + closing.index, start + line.length, SPACE);
    }
    const body = line.slice(lead[0].length);
    const off = start + lead[0].length;
    // Table cells: the pipes separate words.
    if (line.includes('|')) for (const m of body.matchAll(/\|/g)) mask[off + m.index] = SPACE;
    // Images and links: keep the text, drop the brackets and the target.
    for (const m of body.matchAll(/(!?)\[([^\]\n]*)\](\([^)\n]*\)|\[[^\]\n]*\])/g)) {
      const s = off + m.index;
      fill(mask, s, s + m[1]!.length + 1, DROP);
      const close = s + m[1]!.length + 1 + m[2]!.length;
      fill(mask, close, close + 1 + m[3]!.length, DROP);
    }
    // Autolinks and HTML tags.
    for (const m of body.matchAll(/<\/?[A-Za-z][^>\n]*>|<!--.*?-->/g)) fill(mask, off + m.index, off + m.index + m[0].length, SPACE);
    // Emphasis and code spans: the markers only, never a word's inner _ (snake_case stays).
    for (const m of body.matchAll(/(\*{1,3}|_{1,3}|`+|~~)/g)) {
      const i = m.index;
      const before = body[i - 1] ?? ' ';
      const after = body[i + m[0].length] ?? ' ';
      const word = /[\p{L}\p{N}]/u;
      if (m[0][0] === '_' && word.test(before) && word.test(after)) continue;
      if (/\s/.test(before) && /\s/.test(after)) continue; // a lone * or _ between spaces is prose
      fill(mask, off + i, off + i + m[0].length, DROP);
    }
  });
  return mask;
}
