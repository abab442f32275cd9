// The substring path on the trigram index (CJK/Korean text, words inside identifiers), the spans of
// its matches, and mixing its hits with whole-word hits.
import { turn } from '../turns.js';
import type { Filters } from '../store/doc-filter.js';
import type { WordSource } from './word-source.js';
import type { LexicalHit, LexicalResult } from './lexical-result.js';

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

/** Substring matching on the trigram index: a hit scores the idf of the words it contains. */
export async function substringSearch(src: WordSource, words: string[], filters: Filters, limit: number): Promise<LexicalResult> {
  const byRow = new Map<number, { score: number; matched: string[] }>();
  for (const w of words.filter((x) => !/[%_\\]/.test(x))) {
    await turn();
    const rows = await src.substring(w, filters);
    const idf = src.stats.idf(rows.length);
    for (const rowid of rows) {
      const e = byRow.get(rowid) ?? { score: 0, matched: [] };
      e.score += idf;
      e.matched.push(w);
      byRow.set(rowid, e);
    }
  }
  const ranked = [...byRow.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]).slice(0, limit);
  const texts = await src.texts(ranked.map(([rowid]) => rowid));
  const hits: LexicalHit[] = ranked.map(([rowid, e], i) => ({
    rowid,
    score: e.score / (1 + e.score),
    bm25: null,
    coverage: e.matched.length / words.length,
    proximity: null,
    feedback: null,
    matched: e.matched,
    spans: substringSpans(texts[i]!.text, e.matched),
  }));
  return { hits, total: byRow.size, totalEstimated: false, ftsQuery: null, strategy: 'substring' };
}
