// Snippets: a window of the chunk text around its densest run of matched words, whitespace collapsed,
// with the highlight ranges relative to the snippet so any front end can mark them.
import { DROP, SPACE } from './markup.js';

/**
 * The snippet window: at most `maxChars` of the body around the densest run of matches, whitespace
 * collapsed, with highlight ranges relative to the returned text.
 */
export function snippetFor(
  body: string,
  spans: [number, number][],
  maxChars: number,
  /** Syntax to leave out (markup.ts): DROP characters vanish, SPACE ones read as a space. */
  mask?: Uint8Array,
): { text: string; highlights: [number, number][] } {
  let start = 0;
  if (body.length > maxChars && spans.length > 0) {
    // Slide over match starts; keep the window holding the most matches.
    let bestCount = 0;
    let j = 0;
    for (let i = 0; i < spans.length; i++) {
      while (j < spans.length && spans[j]![1] - spans[i]![0] <= maxChars * 0.8) j++;
      if (j - i > bestCount) {
        bestCount = j - i;
        start = spans[i]![0];
      }
    }
    start = Math.max(0, start - Math.floor(maxChars * 0.15));
    const space = body.lastIndexOf(' ', start);
    if (space >= 0 && start - space < 20) start = space + 1;
  }
  // Markup left out may be long (a link's target): read on until the snippet is full.
  const rawEnd = mask ? body.length : Math.min(body.length, start + maxChars * 2);
  let text = '';
  const map: number[] = []; // output index → body index
  let lastSpace = true;
  for (let i = start; i < rawEnd && text.length < maxChars; i++) {
    if (mask?.[i] === DROP) continue;
    const ch = mask?.[i] === SPACE ? ' ' : body[i]!;
    if (/\s/.test(ch)) {
      if (lastSpace) continue;
      text += ' ';
      lastSpace = true;
    } else {
      text += ch;
      lastSpace = false;
    }
    map.push(i);
  }
  text = text.trimEnd();
  const lead = start > 0 ? '…' : '';
  const endBody = map[text.length - 1] ?? start;
  let lastProse = body.length - 1;
  while (lastProse >= 0 && (/\s/.test(body[lastProse]!) || (mask !== undefined && mask[lastProse] !== 0))) lastProse--;
  const tail = endBody < lastProse ? '…' : '';
  if (lead.length + text.length + tail.length > maxChars) text = text.slice(0, maxChars - lead.length - tail.length);
  const highlights: [number, number][] = [];
  for (const [s, e] of spans) {
    const from = map.indexOf(s);
    const to = map.indexOf(e - 1);
    if (from >= 0 && to >= 0 && to < text.length) highlights.push([from + lead.length, to + 1 + lead.length]);
  }
  return { text: lead + text + tail, highlights };
}
