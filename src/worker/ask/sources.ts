// The sources an answer may use: hybrid search hits for the question, neighbouring chunks of one
// document merged into one source, near-duplicates dropped, and as many as fit the model's context
// packed in rank order, numbered [1]…[n].
import { citationLabel, makeCitation } from '../../shared/citation.js';
import type { Anchor, AskSource, Citation, SearchHit } from '../../shared/wire.js';

/** Characters per token, for budgeting without the model's tokenizer (English runs ~4; kept safe). */
const CHARS_PER_TOKEN = 3.5;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Share of words two texts have in common (Jaccard); above 0.85 they say the same thing. */
export function similarity(a: string, b: string): number {
  const wa = words(a);
  const wb = words(b);
  if (wa.size === 0 || wb.size === 0) return 0;
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  return common / (wa.size + wb.size - common);
}

/** One citation spanning two neighbouring chunks of the same document, or null when they do not join. */
function joinCitations(a: Citation, b: Citation): Citation | null {
  let anchor: Anchor | null = null;
  if (a.kind === 'lines' && b.kind === 'lines') {
    const [first, last] = a.start < b.start || (a.start === b.start && (a.col_start ?? 0) <= (b.col_start ?? 0)) ? [a, b] : [b, a];
    // Windows of one long line join into the characters both cover; else whole lines.
    const cols =
      first.col_start !== undefined && last.col_end !== undefined && first.start === first.end && last.start === last.end
        ? { col_start: first.col_start, col_end: Math.max(last.col_end, first.col_end ?? 0) }
        : {};
    anchor = { kind: 'lines', start: first.start, end: Math.max(a.end, b.end), ...cols };
  } else if (a.kind === 'page' && b.kind === 'page') {
    const lo = Math.min(a.page, b.page);
    const hi = Math.max(a.page_end ?? a.page, b.page_end ?? b.page);
    anchor = hi > lo ? { kind: 'page', page: lo, page_end: hi } : { kind: 'page', page: lo };
  } else if (a.kind === 'time' && b.kind === 'time')
    anchor = { kind: 'time', start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
  else if (a.kind === 'para' && b.kind === 'para')
    anchor = { kind: 'para', start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
  else if (a.kind === 'rows' && b.kind === 'rows' && a.sheet === b.sheet) {
    anchor = {
      kind: 'rows',
      start: Math.min(a.start, b.start),
      end: Math.max(a.end, b.end),
      ...(a.sheet !== undefined ? { sheet: a.sheet } : {}),
    };
  }
  if (!anchor) return null;
  const c = makeCitation(a.path, anchor, a.section ?? b.section);
  return { ...c, label: citationLabel(c, a.path.split(/[\\/]/).pop() ?? a.path) };
}

/**
 * Hits in rank order → merged and de-duplicated hits. Chunks of one document whose ordinals touch
 * become one hit at the better rank, text in document order.
 */
export function mergeHits(hits: SearchHit[]): SearchHit[] {
  const out: SearchHit[] = [];
  const spans = new Map<SearchHit, { first: number; last: number }>();
  const kept: string[] = []; // every chunk text taken so far, merged or not
  for (const h of hits) {
    if (kept.some((t) => similarity(t, h.text) > 0.85)) continue;
    const i = h.source.chunk_index;
    const near = out.find((o) => {
      const s = spans.get(o)!;
      return o.doc_id === h.doc_id && (i === s.first - 1 || i === s.last + 1);
    });
    if (near) {
      const s = spans.get(near)!;
      const joined = joinCitations(near.citation, h.citation);
      if (joined) {
        const before = i < s.first;
        const merged: SearchHit = { ...near, text: before ? `${h.text}\n\n${near.text}` : `${near.text}\n\n${h.text}`, citation: joined };
        out[out.indexOf(near)] = merged;
        spans.delete(near);
        spans.set(merged, { first: Math.min(s.first, i), last: Math.max(s.last, i) });
        kept.push(h.text);
        continue;
      }
    }
    kept.push(h.text);
    out.push(h);
    spans.set(h, { first: i, last: i });
  }
  return out;
}

/** Numbers the hits that fit in `budget` tokens (rank order; a hit too long for what is left is cut short). */
export function packSources(hits: SearchHit[], budget: number): AskSource[] {
  const out: AskSource[] = [];
  let left = budget;
  for (const hit of hits) {
    const overhead = estimateTokens(`[${out.length + 1}] ${hit.citation.label ?? hit.citation.uri}\n\n`);
    const need = overhead + estimateTokens(hit.text);
    if (need <= left) {
      out.push({ n: out.length + 1, hit });
      left -= need;
    } else if (left - overhead > 200) {
      // Room for a useful part of it: the start of the passage, where its chunk's topic is.
      const chars = Math.floor((left - overhead) * CHARS_PER_TOKEN);
      out.push({ n: out.length + 1, hit: { ...hit, text: `${hit.text.slice(0, chars)}…` } });
      break;
    } else break;
  }
  return out;
}
