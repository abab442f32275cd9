// The search view: the hits of the query (with what the search says of itself) and, beside them, the
// open hit in its viewer.
import { folderHints } from './lib/same-names';
import { type ReactNode, type RefObject, useDeferredValue, useMemo } from 'react';
import type { KbBridge } from '../shared/api';
import { MAX_TOP } from '../shared/search-limits';
import { markedByMeaning } from '../shared/by-meaning';
import { HitRow } from './HitRow';
import { SearchNotes } from './SearchNotes';
import { Viewer } from './Viewer';
import type { Search } from './hooks/useSearch';

export interface SearchPaneProps {
  kb: KbBridge;
  search: Search;
  explain: boolean;
  /** A type or tag narrows the search (a search that finds nothing says so). */
  filtered: boolean;
  emptyIndex: boolean;
  /** The steps left on a new index: shown with no query, and when a search finds nothing in an empty index. */
  firstRun: ReactNode;
  showFirstRun: boolean;
  /** The button that gets a speech model, where a recording waits for one. */
  speech: ReactNode;
  editor: string;
  listRef: RefObject<HTMLElement | null>;
  viewerRef: RefObject<HTMLElement | null>;
  onAsTyped: (query: string) => void;
  /** Searches for other words (a suggestion taken). */
  onSearch: (query: string) => void;
}

export function SearchPane({
  kb,
  search,
  explain,
  filtered,
  emptyIndex,
  firstRun,
  showFirstRun,
  speech,
  editor,
  listRef,
  viewerRef,
  onAsTyped,
  onSearch,
}: SearchPaneProps) {
  const { result, error, pinned, selected } = search;
  const hits = result?.results ?? [];
  const folders = folderHints(hits.map((h) => h.citation.path));
  const hit = pinned ?? hits[selected];
  // The list first, the viewer after: opening a document never delays the next keystroke's results.
  // The hit and the query it answered go together, so the viewer never reloads an old hit for a new query.
  const answered = result?.query ?? '';
  const shownPair = useDeferredValue(useMemo(() => (hit ? { hit, query: answered } : null), [hit, answered]));
  return (
    <>
      <section className="results" aria-label="Results" data-query={result?.query ?? ''} ref={listRef}>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {/* The hits below answered an earlier keystroke: said so, and dimmed, never passed off as this search's. */}
        {error && result && hits.length > 0 && (
          <p className="hint stale-note">Below: the results for “{result.query.trim()}”, an earlier search.</p>
        )}
        {showFirstRun && firstRun}
        {/* A failed search's own words are above; the notes of the earlier one it would contradict are not shown. */}
        {result && !error && (
          <SearchNotes
            result={result}
            filtered={filtered}
            emptyIndex={emptyIndex}
            onAsTyped={() => onAsTyped(result.query.trim())}
            onSearch={onSearch}
            firstRun={firstRun}
          />
        )}
        <ol className={error ? 'stale' : undefined}>
          {hits.map((h, i) => (
            <HitRow
              key={`${h.doc_id}:${h.chunk_id}`}
              hit={h}
              folder={folders.get(h.citation.path) ?? null}
              byMeaning={result ? markedByMeaning(result, h) : false}
              speech={speech}
              active={!pinned && i === selected}
              explain={explain}
              onClick={() => {
                search.pin(null);
                search.select(i);
              }}
            />
          ))}
        </ol>
        {result &&
          result.returned >= search.top &&
          result.total_matches > result.returned &&
          (search.top < MAX_TOP ? (
            <button className="more" onClick={search.showMore}>
              Show more
            </button>
          ) : (
            <p className="meta">The first {MAX_TOP} are shown: add a word or a filter to reach the others.</p>
          ))}
        {result && (
          <p className="meta">
            {result.returned} of {result.total_matches_estimated ? '~' : ''}
            {result.total_matches} in {result.took_ms} ms
            {result.vector?.status === 'unavailable' ? ' · by words only' : ''}
            {result.rerank?.status === 'ok' ? ' · reranked' : ''}
            {result.rerank?.status === 'unavailable' && <span title={result.rerank.reason}> · not reranked: {result.rerank.reason}</span>}
          </p>
        )}
      </section>
      <section className="viewer" aria-label="Viewer" ref={viewerRef} tabIndex={-1}>
        {shownPair ? (
          <Viewer hit={shownPair.hit} query={shownPair.query} kb={kb} editor={editor} waiting={speech} />
        ) : (
          <p className="hint">Type to search; ↑/↓ to move through the hits, Enter to open one.</p>
        )}
      </section>
    </>
  );
}
