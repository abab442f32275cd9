// Search as you type (lib/latest-only.ts: no debounce delay, no stale answers), the hits shown a page
// at a time, and which hit is open: the one chosen in the list, or one pinned from elsewhere (the ask
// panel, the Library).
import { useEffect, useMemo, useState } from 'react';
import type { KbBridge } from '../../shared/api';
import type { DocType, SearchHit, SearchParams, SearchResult } from '../../shared/wire';
import { latestOnly } from '../lib/latest-only';
import { MAX_TOP } from '../../shared/search-limits';

/** Results asked for at first, and added by "Show more". */
const PAGE = 20;

export interface SearchInput {
  query: string;
  type: DocType | '';
  tags: string;
  explain: boolean;
  /** The query text to search as typed, its correction turned down ("search for … instead"). */
  asTyped: string | null;
  /** Bumped when the index changes: the same search is asked again. */
  version: number;
  rerank: { on: boolean; pauseMs: number };
}

export interface Search {
  result: SearchResult | null;
  error: string | null;
  top: number;
  showMore: () => void;
  selected: number;
  select: (i: number | ((i: number) => number)) => void;
  pinned: SearchHit | null;
  pin: (hit: SearchHit | null) => void;
}

export function tagsOf(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((t) => t.replace(/^#/, ''))
    .filter(Boolean);
}

export function useSearch(kb: KbBridge, input: SearchInput): Search {
  const { query, type, tags, explain, asTyped, version, rerank } = input;
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, select] = useState(0);
  const [pinned, pin] = useState<SearchHit | null>(null);
  // A new query or filter starts at the first page again.
  const pageKey = JSON.stringify([query, type, tags]);
  const [paged, setPaged] = useState({ key: pageKey, top: PAGE });
  const top = paged.key === pageKey ? paged.top : PAGE;
  const q = query.trim();
  // The box cleared: nothing is shown, not even the last answer while a new one is on its way.
  if (!q && (result || error)) {
    setResult(null);
    setError(null);
  }

  const searcher = useMemo(
    () =>
      latestOnly(
        (p: SearchParams) => kb.search(p),
        (r: SearchResult) => {
          setResult(r);
          setError(null);
          select(0);
          pin(null);
        },
        (e) => setError(e.message),
      ),
    [kb],
  );
  const { on: rerankOn, pauseMs } = rerank;
  useEffect(() => {
    if (!q) {
      searcher.clear();
      return;
    }
    const params: SearchParams = {
      query: q,
      prefix: !query.endsWith(' '),
      top,
      explain,
      tags: tagsOf(tags),
      ...(type ? { type } : {}),
      ...(asTyped === q ? { correct: false } : {}),
    };
    if (!rerankOn) {
      searcher.submit(params);
      return;
    }
    // A cross-encoder costs ~100 ms a query: every keystroke gets the fused hits at once, and the
    // reranked ones follow when typing pauses (a newer keystroke cancels them; latest-only drops late ones).
    searcher.submit({ ...params, rerank: false });
    const later = setTimeout(() => searcher.submit({ ...params, rerank: true }), pauseMs);
    return () => clearTimeout(later);
  }, [q, query, type, tags, explain, searcher, version, top, rerankOn, pauseMs, asTyped]);

  return {
    result,
    error,
    top,
    showMore: () => setPaged({ key: pageKey, top: Math.min(top + PAGE, MAX_TOP) }),
    selected,
    select,
    pinned,
    pin,
  };
}
