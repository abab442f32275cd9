// Helpers of the substring (trigram) path and of mixing its hits with whole-word hits.
import type { LexicalHit, LexicalResult } from './lexical.js';

/** Where the words occur in the text, case-insensitively, in order (at most 200 spans). */
export function substringSpans(text: string, words: string[]): [number, number][] {
  const lower = text.toLowerCase();
  const spans: [number, number][] = [];
  for (const w of words) {
    const needle = w.toLowerCase();
    for (let i = lower.indexOf(needle); i >= 0 && spans.length < 200; i = lower.indexOf(needle, i + needle.length)) {
      spans.push([i, i + needle.length]);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

export function merge(a: LexicalResult, b: LexicalResult, limit: number): LexicalResult {
  const byRow = new Map<number, LexicalHit>();
  for (const h of [...a.hits, ...b.hits]) {
    const prev = byRow.get(h.rowid);
    if (!prev) byRow.set(h.rowid, { ...h });
    else {
      prev.score += h.score;
      prev.matched = [...new Set([...prev.matched, ...h.matched])];
      prev.spans = [...prev.spans, ...h.spans].sort((x, y) => x[0] - y[0]);
    }
  }
  const hits = [...byRow.values()].sort((x, y) => y.score - x.score || x.rowid - y.rowid).slice(0, limit);
  return { hits, total: Math.max(a.total, b.total, hits.length), totalEstimated: a.totalEstimated, ftsQuery: a.ftsQuery, strategy: 'fts' };
}
