// The library: every indexed document with its status and error, sorted as the person chooses, the
// failed or waiting ones a click away, to open, remove or index again.
import { AddFiles } from '../AddFiles';
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { KbBridge } from '../../shared/api';
import { inApp } from '../lib/in-app';
import type { DocumentPage, DocumentPageParams, DocumentSummary } from '../../shared/wire';
import { shownPath } from '../lib/shown-path';
import { waitsForSpeechModel } from '../lib/speech';
import { Said, useSayings } from '../Said';
import { useDebounced } from '../hooks/useDebounced';
import { count, num } from '../lib/numbers';
import { formatBytes } from '../../shared/bytes';

/** A recording's length as a clock, as its citations say it (the renderer takes only types from shared). */
const clock = (s: number): string => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;

type SortKey = DocumentPageParams['sort'] & string;
const COLUMNS: [SortKey, string][] = [
  ['title', 'Document'],
  ['type', 'Type'],
  ['chunks', 'Passages'],
  ['size', 'Size'],
  ['status', 'Status'],
  ['updated', 'Updated'],
];
/** Rows asked for at a time: the first page is what opening the Library waits for. */
const PAGE = 100;
/** A row's height before it is measured (a title and its path). */
const ROW_PX = 52;
/** Rows drawn above and below the ones in view. */
const OVERSCAN = 12;

type Only = DocumentSummary['status'] | null;

export function Library({
  kb,
  version,
  onReindex,
  server = null,
  onChanged,
  onOpen,
  speech,
  onFiles,
  onPaths,
  team = null,
}: {
  kb: KbBridge;
  version: number;
  onReindex: (paths: string[]) => void;
  /** The team server whose documents these are (the app connected to one), or null: this computer's. */
  server?: string | null;
  onChanged: () => void;
  /** Opens a document; rejects with why it cannot be shown, said in its row. */
  onOpen: (d: DocumentSummary) => Promise<void>;
  speech: ReactNode;
  /** Files chosen with Add files…: sent to the ingest as a drop is (none for a team server's Library). */
  onFiles?: ((files: File[], to: string | null) => void) | undefined;
  onPaths?: ((paths: string[]) => void) | undefined;
  /**
   * A team's user signed in to kb serve: the collections they may add to (none: a reader, who is shown
   * nothing to change). The server keeps its folders in sync: no one re-indexes them all from here.
   */
  team?: { into: string[] } | null;
}) {
  const [page, setPage] = useState<DocumentPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [only, setOnly] = useState<Only>(null);
  const [sort, setSort] = useState<{ key: SortKey; down: boolean }>({ key: 'title', down: false });
  const { sayings, say, fail } = useSayings<string>();
  // The engine sorts, filters and counts (250,000 documents are never downloaded): the first page
  // when the question changes, the next ones as the list scrolls near its end.
  const typed = useDebounced(filter.trim(), 150);
  const asked = useRef(0);
  const scroller = useRef<HTMLElement>(null);
  const ask = useCallback(
    (offset: number, keep: DocumentSummary[]) => {
      const mine = ++asked.current;
      kb['documents.page']({
        offset,
        limit: PAGE,
        sort: sort.key,
        down: sort.down,
        ...(only ? { status: only } : {}),
        ...(typed ? { filter: typed } : {}),
      }).then(
        (p) => {
          if (mine !== asked.current) return; // a newer question was asked meanwhile
          // The counts come with the first page; a later page keeps them.
          setPage((was) => ({ ...p, counts: p.counts ?? was?.counts, documents: [...keep, ...p.documents] }));
          setError(null);
        },
        (e: Error) => mine === asked.current && setError(e.message),
      );
    },
    [kb, sort, only, typed],
  );
  useEffect(() => ask(0, []), [ask, version]);
  // Another order or filter starts at the top of the list; a change to the index keeps the place.
  // (A block: Chromium's scrollTo returns a promise, which React would take for the effect's cleanup.)
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [sort, only, typed]);
  const more = useRef<HTMLDivElement>(null);
  const rows = page?.documents;
  // Only the rows in view are drawn (a scrolled-through list of 250,000 would be as many table rows);
  // the others are two spacer rows of their measured or estimated height.
  const body = useRef<HTMLTableSectionElement>(null);
  const [bodyTop, setBodyTop] = useState(0);
  // The virtualizer's functions change as it scrolls: React Compiler leaves this component unmemoised.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtual = useVirtualizer({
    count: rows?.length ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: OVERSCAN,
    scrollMargin: bodyTop,
    getItemKey: (i) => rows?.[i]?.doc_id ?? i,
  });
  useLayoutEffect(() => {
    const el = body.current;
    const box = scroller.current;
    if (!el || !box) return;
    const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
    if (Math.abs(top - bodyTop) > 0.5) setBodyTop(top);
  }, [page, error, bodyTop]);
  const left = page ? page.total - page.documents.length : 0;
  useEffect(() => {
    const el = more.current;
    if (!el || !rows || left <= 0) return;
    const seen = new IntersectionObserver((e) => e.some((x) => x.isIntersecting) && ask(rows.length, rows), { rootMargin: '600px' });
    seen.observe(el);
    return () => seen.disconnect();
  }, [ask, rows, left]);
  const remove = async (d: DocumentSummary): Promise<void> => {
    say(d.doc_id, null);
    if (!window.confirm(`Remove “${d.title}” from kb? The file itself is not touched.`)) return;
    try {
      await kb.remove({ target: d.doc_id });
      onChanged();
    } catch (e) {
      fail(d.doc_id, e);
    }
  };
  const open = (d: DocumentSummary): void => {
    say(d.doc_id, null);
    onOpen(d).catch((e: unknown) => fail(d.doc_id, e));
  };
  if (!page)
    return (
      <section className="library" aria-label="Library">
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : (
          <p className="hint">Loading…</p>
        )}
      </section>
    );
  const { all, failed, waiting } = page.counts ?? { all: page.total, failed: 0, waiting: 0 };
  const shown = page.documents;
  const drawn = virtual.getVirtualItems();
  const above = drawn.length > 0 ? drawn[0]!.start - bodyTop : 0;
  const below = drawn.length > 0 ? virtual.getTotalSize() - (drawn.at(-1)!.end - bodyTop) : 0;
  const pick = (s: Only) => setOnly((o) => (o === s ? null : s));
  const sortBy = (key: SortKey) => setSort((s) => ({ key, down: s.key === key ? !s.down : key === 'updated' }));
  return (
    <section className="library" aria-label="Library" ref={scroller}>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="library-head">
        {onFiles && onPaths && !server && <AddFiles kb={kb} onFiles={onFiles} onPaths={onPaths} into={team?.into ?? null} />}
        <button className={only === null ? 'on' : ''} aria-pressed={only === null} onClick={() => setOnly(null)}>
          {count(all, 'document')}
        </button>
        {failed > 0 && (
          <button
            className={only === 'failed' ? 'on error' : 'error'}
            aria-pressed={only === 'failed'}
            onClick={() => pick('failed')}
            title="Show only the documents that failed"
          >
            {failed} failed
          </button>
        )}
        {waiting > 0 && (
          <button
            className={only === 'waiting' ? 'on waiting' : 'waiting'}
            aria-pressed={only === 'waiting'}
            onClick={() => pick('waiting')}
            title="Show only the documents still waiting"
          >
            {waiting} waiting
          </button>
        )}
        <input
          type="search"
          placeholder="Filter by name, path or tag"
          aria-label="Filter documents"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
        />
        {server ? (
          <span className="hint" data-server={server}>
            on the team server at {new URL(server).host}: what your account there may read
          </span>
        ) : team ? null : (
          <button
            onClick={() =>
              kb['documents.paths']({}).then(
                (r) => onReindex(r.paths),
                (e: Error) => setError(e.message),
              )
            }
            disabled={all === 0}
          >
            Re-index all
          </button>
        )}
      </div>
      {all === 0 ? (
        <p className="none">Nothing added yet: drop files or folders anywhere on this window, or use Add files… in Search.</p>
      ) : shown.length === 0 ? (
        <p className="none" role="status">
          No document {only ? `${only} ` : ''}matches{filter.trim() ? ` “${filter.trim()}”` : ''}.{' '}
          <button
            className="link"
            onClick={() => {
              setFilter('');
              setOnly(null);
            }}
          >
            Show all {num(all)}
          </button>
        </p>
      ) : (
        <>
          <table aria-rowcount={page.total + 1}>
            <thead>
              <tr>
                {COLUMNS.map(([key, name]) => (
                  <th key={key} aria-sort={sort.key === key ? (sort.down ? 'descending' : 'ascending') : undefined}>
                    <button className="sort" onClick={() => sortBy(key)}>
                      {name}
                      {sort.key === key ? (sort.down ? ' ↓' : ' ↑') : ''}
                    </button>
                  </th>
                ))}
                <th />
              </tr>
            </thead>
            <tbody ref={body}>
              {above > 0 && (
                <tr className="spacer" aria-hidden="true" style={{ height: above }}>
                  <td colSpan={COLUMNS.length + 1} />
                </tr>
              )}
              {drawn.map(({ index, key }) => {
                const d = shown[index]!;
                return (
                  <tr
                    key={key}
                    ref={virtual.measureElement}
                    data-index={index}
                    aria-rowindex={index + 2}
                    className={d.status === 'indexed' ? undefined : d.status}
                    data-doc={d.doc_id}
                    data-status={d.status}
                  >
                    <td>
                      <div className="title">
                        {d.status === 'failed' ? (
                          d.title
                        ) : (
                          <button className="link" onClick={() => open(d)} title="Open it">
                            {d.title}
                          </button>
                        )}
                      </div>
                      <div className="path" title={d.path}>
                        {shownPath(d.path)}
                      </div>
                      {d.tags.length > 0 && (
                        <div className="tags">
                          {d.tags.map((t) => (
                            <span key={t}>#{t}</span>
                          ))}
                        </div>
                      )}
                      <Said said={sayings[d.doc_id]} as="div" place={d.doc_id} />
                    </td>
                    <td className="nowrap">{d.type}</td>
                    <td className="nowrap">{d.chunks}</td>
                    <td className="nowrap">
                      {d.size > 0 ? formatBytes(d.size) : '–'}
                      {d.duration !== undefined && <div className="path">{clock(d.duration)}</div>}
                    </td>
                    <td>
                      {/* The same word and reason as kb ls: indexed, waiting or failed. */}
                      <span className={`status status-${d.status}`}>{d.status}</span>
                      {d.reason && <div className={d.status === 'failed' ? 'reason error' : 'reason'}>{inApp(d.reason)}</div>}
                      {d.status === 'waiting' && waitsForSpeechModel(d.reason) && <div className="reason-action">{speech}</div>}
                      {!d.original_available && (
                        <div className="reason" title="the file was moved or deleted, and no copy was kept">
                          original missing
                        </div>
                      )}
                    </td>
                    <td className="path nowrap">{d.updated_at.slice(0, 10)}</td>
                    <td className="actions">
                      {/* A server's files are read again by the server, which keeps its folders in sync. */}
                      {!server && team?.into.length !== 0 && (
                        <button onClick={() => onReindex([d.path])} title="Read the file again">
                          Re-index
                        </button>
                      )}
                      {team?.into.length !== 0 && (
                        <button onClick={() => void remove(d)} title="Remove from kb">
                          Remove
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
              {below > 0 && (
                <tr className="spacer" aria-hidden="true" style={{ height: below }}>
                  <td colSpan={COLUMNS.length + 1} />
                </tr>
              )}
            </tbody>
          </table>
          {left > 0 && (
            <div ref={more} className="hint" role="status">
              Showing {num(shown.length)} of {num(page.total)}…
            </div>
          )}
        </>
      )}
    </section>
  );
}
