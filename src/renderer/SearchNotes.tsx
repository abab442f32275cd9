// What the hit list says about the search itself: a typo corrected (with the words as typed a click
// away), a word the index lacks searched by its meaning (with the index's nearest word a click away),
// hits found by meaning alone, a query read otherwise than typed (an unfinished FTS5 expression), and why nothing matched —
// on an empty index, with what to do about it.
import type { ReactNode } from 'react';
import type { SearchResult } from '../shared/wire';
import { MEANING_ONLY_NOTE } from '../shared/by-meaning';

export function SearchNotes({
  result,
  filtered,
  emptyIndex,
  onAsTyped,
  onSearch,
  firstRun,
}: {
  result: SearchResult;
  filtered: boolean;
  emptyIndex: boolean;
  onAsTyped: () => void;
  /** Searches for other words (a suggestion taken). */
  onSearch: (query: string) => void;
  firstRun: ReactNode;
}) {
  return (
    <>
      {result.corrected && (
        <p className="corrected" role="status">
          Showing results for <strong>{result.corrected.query}</strong> ·{' '}
          <button className="link" onClick={onAsTyped}>
            search for {result.query.trim()} instead
          </button>
        </p>
      )}
      {result.suggested ? (
        <p className="corrected" role="status">
          {inNoPassage(result.suggested.words.map((w) => w.from))} ·{' '}
          <button className="link" onClick={() => onSearch(result.suggested!.query)}>
            search for <strong>{result.suggested.query}</strong> instead
          </button>
        </p>
      ) : (
        result.meaning_only && (
          <p className="hint" role="status">
            {MEANING_ONLY_NOTE}
          </p>
        )
      )}
      {result.notice && (
        <p className="warn notice" role="status">
          {result.notice}
        </p>
      )}
      {result.results.length === 0 &&
        (emptyIndex ? (
          <div className="none" role="status">
            <p>Nothing is indexed yet, so nothing can match “{result.query}”.</p>
            {firstRun}
          </div>
        ) : (
          <p className="none">
            No matches for “{result.query}”{filtered ? ' with these filters' : ''}.
          </p>
        ))}
    </>
  );
}

/** “rest” is in no passage…, or “rest” and “tire” are. */
function inNoPassage(words: string[]): string {
  const q = words.map((w) => `“${w}”`);
  if (q.length === 1) return `${q[0]!} is in no passage: searched by its meaning`;
  return `${q.slice(0, -1).join(', ')} and ${q.at(-1)!} are in no passage: searched by their meaning`;
}
