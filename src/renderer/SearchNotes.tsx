// What the hit list says about the search itself: a typo corrected (with the words as typed a click
// away), a query read otherwise than typed (an unfinished FTS5 expression), and why nothing matched —
// on an empty index, with what to do about it.
import type { ReactNode } from 'react';
import type { SearchResult } from '../shared/wire';

export function SearchNotes({
  result,
  filtered,
  emptyIndex,
  onAsTyped,
  firstRun,
}: {
  result: SearchResult;
  filtered: boolean;
  emptyIndex: boolean;
  onAsTyped: () => void;
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
