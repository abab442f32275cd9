import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import type { KbBridge } from '../shared/api';
import type { BackgroundEvent } from '../shared/events';
import type { DocType, DocumentSummary, SearchHit, SearchParams, SearchResult } from '../shared/wire';
import { DOC_TYPE_TABLE } from '../shared/doc-types';
import { AskPanel } from './AskPanel';
import { BackgroundNote } from './BackgroundNote';
import { HitRow } from './HitRow';
import { SpeechModelButton } from './SpeechModelButton';
import { speechModel } from './lib/speech';
import { DropTarget, IngestPanel, useIngest } from './Ingest';
import { Library } from './Library';
import { latestOnly } from './lib/latest-only';
import { useIndexCounts } from './lib/index-counts';
import { SearchNotes } from './SearchNotes';
import { forgetPdfs, preloadPdf } from './PdfView';
import { Viewer } from './Viewer';
import { useModelPull } from './lib/model-pull';
import { FirstRun, type SetupState } from './views/FirstRun';
import { Folders } from './views/Folders';
import { Models } from './views/Models';
import { Settings } from './views/Settings';
import { Status } from './views/Status';


const VIEWS = ['search', 'library', 'folders', 'models', 'settings', 'status'] as const;
type View = (typeof VIEWS)[number];
const VIEW_NAMES: Record<View, string> = { search: 'Search', library: 'Library', folders: 'Folders', models: 'Models', settings: 'Settings', status: 'Status' };
/** Results asked for at first, and added by "Show more". */
const PAGE = 20;

/** The query and view live in the address (?q=…&view=…): a reload, or a link, opens the same search. */
function fromAddress(): { q: string; view: View } {
  const u = new URLSearchParams(location.search);
  const v = u.get('view');
  return { q: u.get('q') ?? '', view: (VIEWS as readonly string[]).includes(v ?? '') ? (v as View) : 'search' };
}

export function App({ kb }: { kb: KbBridge }) {
  const [query, setQuery] = useState(() => fromAddress().q);
  const [top, setTop] = useState(PAGE);
  const [type, setType] = useState<DocType | ''>('');
  const [tags, setTags] = useState('');
  const [explain, setExplain] = useState(false);
  /** The query text to search as typed, its correction turned down ("search for … instead"). */
  const [asTyped, setAsTyped] = useState<string | null>(null);
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState(0);
  const [pinned, setPinned] = useState<SearchHit | null>(null);
  const [engine, setEngine] = useState('connecting…');
  const [view, setView] = useState<View>(() => fromAddress().view);
  const [setup, setSetup] = useState<SetupState>({ status: null, models: null, settings: null });
  const [background, setBackground] = useState<BackgroundEvent | null>(null);
  const [asking, setAsking] = useState(false);
  const [version, setVersion] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const viewer = useRef<HTMLElement>(null);
  const list = useRef<HTMLElement>(null);

  const refresh = useCallback(() => {
    forgetPdfs();
    setVersion((v) => v + 1);
  }, []);
  const ingest = useIngest(kb, refresh);
  const { docs, tagCounts } = useIndexCounts(kb, version, ingest.state.running);
  const pull = useModelPull(kb, refresh);
  const settings = setup.settings;
  const rerank = { on: settings?.values['search.rerank'] === true, pauseMs: Number(settings?.values['rerank.pause_ms'] ?? 300) };

  // What the first-run steps, the Models view and the hits need to know about this kb.
  useEffect(() => {
    let live = true;
    void Promise.all([kb['index.status']({}).catch(() => null), kb['models.list']({}).catch(() => null), kb['settings.get']({}).catch(() => null)]).then(
      ([status, models, settings]) => live && setSetup({ status, models, settings }),
    );
    return () => {
      live = false;
    };
  }, [kb, version]);
  useEffect(() => {
    const theme = settings?.values['ui.theme'];
    document.documentElement.dataset.theme = theme === 'light' || theme === 'dark' ? theme : 'system';
  }, [settings]);
  useEffect(() => {
    const u = new URLSearchParams(location.search);
    if (query) u.set('q', query);
    else u.delete('q');
    if (view !== 'search') u.set('view', view);
    else u.delete('view');
    const next = `${location.pathname}${u.size ? `?${u}` : ''}${location.hash}`;
    if (next !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', next);
  }, [query, view]);

  useEffect(preloadPdf, []);
  useEffect(() => {
    kb.status({}).then(
      () => setEngine('ready'),
      (e: Error) => setEngine(e.message),
    );
    const offs = [
      kb.on('engine', ({ state, reconnected }) => {
        setEngine(state);
        if (reconnected) refresh(); // back: the current search and counts are asked again
      }),
      kb.on('app:show-hit', (hit) => {
        setView('search');
        setPinned(hit);
      }),
      kb.on('app:preferences', () => setView('settings')),
      kb.on('app:ingest', ({ paths }) => ingest.addPaths(paths)),
      // A watched folder changed: counts, the library and the current results follow.
      kb.on('collections', refresh),
      // A model arrived: its background work (embedding every passage, transcribing) is shown as it goes.
      kb.on('background', (e) => {
        setBackground(e);
        if (e.phase !== 'running') refresh();
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [kb, ingest.addPaths, refresh]);

  // Search as you type (see latest-only.ts: no debounce delay, no stale answers).
  const searcher = useMemo(
    () =>
      latestOnly(
        (p: SearchParams) => kb.search(p),
        (r: SearchResult) => {
          setResult(r);
          setError(null);
          setSelected(0);
          setPinned(null);
        },
        (e) => setError(e.message),
      ),
    [kb],
  );
  useEffect(() => {
    const q = query.trim();
    if (!q) {
      searcher.clear();
      setResult(null);
      setError(null);
      return;
    }
    const tagList = tags.split(/[,\s]+/).map((t) => t.replace(/^#/, '')).filter(Boolean);
    const params: SearchParams = { query: q, prefix: !query.endsWith(' '), top, explain, tags: tagList, ...(type ? { type } : {}), ...(asTyped === q ? { correct: false } : {}) };
    if (!rerank.on) {
      searcher.submit(params);
      return;
    }
    // A cross-encoder costs ~100 ms a query: every keystroke gets the fused hits at once, and the
    // reranked ones follow when typing pauses (a newer keystroke cancels them; latest-only drops late ones).
    searcher.submit({ ...params, rerank: false });
    const later = setTimeout(() => searcher.submit({ ...params, rerank: true }), rerank.pauseMs);
    return () => clearTimeout(later);
  }, [query, type, tags, explain, searcher, version, top, rerank.on, rerank.pauseMs, asTyped]);
  useEffect(() => setTop(PAGE), [query, type, tags]);

  const onKey = useCallback(
    (e: KeyboardEvent) => {
      // ↑/↓ move through the hits only from the search box or the list (or with nothing focused):
      // in the ask box they move the caret, in the viewer they scroll it.
      const at = document.activeElement;
      const onList = !at || at === document.body || at === input.current || Boolean(list.current?.contains(at));
      if ((e.metaKey || e.ctrlKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setView('search');
        input.current?.focus();
        input.current?.select();
      } else if (e.key === 'ArrowDown' && result && view === 'search' && onList) {
        e.preventDefault();
        setPinned(null);
        setSelected((s) => Math.min(s + 1, result.results.length - 1));
      } else if (e.key === 'ArrowUp' && result && view === 'search' && onList) {
        e.preventDefault();
        setPinned(null);
        setSelected((s) => Math.max(s - 1, 0));
      } else if (e.key === 'Escape' && asking) {
        // The drawer closes as a dialog does; its question and answer stay for when it opens again.
        e.preventDefault();
        setAsking(false);
        input.current?.focus();
      } else if (e.key === 'Enter' && document.activeElement === input.current && result?.results.length) {
        e.preventDefault();
        viewer.current?.focus(); // open: the viewer takes the keyboard (scrolling), Ctrl-K comes back
      }
    },
    [result, view, asking],
  );
  useEffect(() => {
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onKey]);

  /**
   * A Library row opened: the document found by its own name and path, shown at its start, alone —
   * the previous query's hits have nothing to do with it. Rejects with why, which the row says.
   */
  const openDocument = async (d: DocumentSummary): Promise<void> => {
    const name = d.path.split(/[\\/]/).pop() ?? d.path;
    const glob = d.path.replace(/[*?[\]{}()!]/g, '\\$&');
    const r = await kb.search({ query: name, path: glob, top: 1, mode: 'lexical' });
    if (!r.results[0]) throw new Error(`${name} has nothing to show yet${d.reason ? `: ${d.reason}` : ''}`);
    setQuery('');
    setResult(null);
    setView('search');
    setPinned(r.results[0]);
  };

  const hits = result?.results ?? [];
  const hit = pinned ?? hits[selected];
  // The list first, the viewer after: opening a document never delays the next keystroke's results.
  // The hit and the query it answered go together, so the viewer never reloads an old hit for a new query.
  const answered = result?.query ?? '';
  const shownPair = useDeferredValue(useMemo(() => (hit ? { hit, query: answered } : null), [hit, answered]));
  const shown = shownPair?.hit;
  return (
    <div className="app">
      <DropTarget onDrop={ingest.addDrop} />
      <header>
        <span className="logo">kb</span>
        <input
          ref={input}
          autoFocus
          type="search"
          placeholder="Search your documents  (Ctrl-K)"
          aria-label="Search"
          value={query}
          onChange={(e) => {
            setQuery(e.target.value);
            setView('search');
          }}
        />
        <nav>
          {VIEWS.map((v) => (
            <button key={v} className={view === v ? 'on' : ''} onClick={() => setView(v)} aria-current={view === v ? 'page' : undefined}>
              {VIEW_NAMES[v]}
            </button>
          ))}
          <button className={asking ? 'on' : ''} onClick={() => setAsking((a) => !a)} aria-pressed={asking}>
            Ask
          </button>
        </nav>
      </header>
      <div className="filters" role="toolbar" aria-label="Filters">
        <label>
          Type{' '}
          <select aria-label="Type" value={type} onChange={(e) => setType(e.target.value as DocType | '')}>
            <option value="">any</option>
            {DOC_TYPE_TABLE.map(({ id: t, label }) => (
              <option key={t} value={t}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tags <input aria-label="Tags" placeholder="e.g. work, linux" value={tags} onChange={(e) => setTags(e.target.value)} />
        </label>
        <label>
          <select
            aria-label="Add a tag"
            value=""
            disabled={tagCounts.length === 0}
            onChange={(e) => {
              const t = e.target.value;
              const have = tags.split(/[,\s]+/).map((x) => x.replace(/^#/, '')).filter(Boolean);
              if (t && !have.includes(t)) setTags([...have, t].join(', '));
            }}
          >
            <option value="">{tagCounts.length ? `all tags (${tagCounts.length})` : 'no tags yet'}</option>
            {tagCounts.map(([t, n]) => (
              <option key={t} value={t}>
                #{t} ({n})
              </option>
            ))}
          </select>
        </label>
        <label>
          <input type="checkbox" checked={explain} onChange={(e) => setExplain(e.target.checked)} /> Explain ranking
        </label>
      </div>
      {(engine === 'disconnected' || engine === 'restarting') && (
        <div className="banner" role="alert">
          {engine === 'disconnected' ? 'Lost the connection to kb. Reconnecting…' : 'kb’s engine stopped and is restarting…'} Searches resume when it is back.
        </div>
      )}
      <IngestPanel state={ingest.state} onCancel={ingest.cancel} onDismiss={ingest.dismiss} kb={kb} />
      <main className={asking ? 'with-ask' : undefined}>
        {view === 'library' ? (
          <Library kb={kb} version={version} onReindex={ingest.reindex} onChanged={refresh} onOpen={openDocument} speech={<SpeechModelButton pull={pull} name={speechModel(settings)} />} />
        ) : view === 'folders' ? (
          <Folders kb={kb} version={version} onChanged={refresh} />
        ) : view === 'models' ? (
          <Models
            kb={kb}
            version={version}
            pull={pull}
            inUse={{ embedding: setup.status?.embedding.model ?? '', speech: speechModel(settings), reranker: rerank.on ? String(settings?.values['rerank.model'] ?? '') : '' }}
            ollamaModels={settings?.ollama.models ?? []}
            onChanged={refresh}
          />
        ) : view === 'settings' ? (
          <Settings kb={kb} settings={settings} onChanged={refresh} />
        ) : view === 'status' ? (
          <Status kb={kb} version={version} />
        ) : (
          <>
            <section className="results" aria-label="Results" data-query={result?.query ?? ''} ref={list}>
              {error && <p className="error">{error}</p>}
              {!query && !ingest.state.running && <FirstRun kb={kb} setup={setup} pull={pull} onFiles={ingest.addFiles} onPaths={ingest.addPaths} onChanged={refresh} />}
              {result && (
                <SearchNotes
                  result={result}
                  filtered={Boolean(type || tags.trim())}
                  emptyIndex={docs?.count === 0 && !ingest.state.running}
                  onAsTyped={() => setAsTyped(result.query.trim())}
                  firstRun={<FirstRun kb={kb} setup={setup} pull={pull} onFiles={ingest.addFiles} onPaths={ingest.addPaths} onChanged={refresh} />}
                />
              )}
              <ol>
                {hits.map((h, i) => (
                  <HitRow
                    key={`${h.doc_id}:${h.chunk_id}`}
                    hit={h}
                    speech={<SpeechModelButton pull={pull} name={speechModel(settings)} />}
                    active={!pinned && i === selected}
                    explain={explain}
                    onClick={() => {
                      setPinned(null);
                      setSelected(i);
                    }}
                  />
                ))}
              </ol>
              {result && result.returned >= top && result.total_matches > result.returned && (
                <button className="more" onClick={() => setTop((t) => t + PAGE)}>
                  Show more
                </button>
              )}
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
            <section className="viewer" aria-label="Viewer" ref={viewer} tabIndex={-1}>
              {shown ? (
                <Viewer hit={shown} query={shownPair.query} kb={kb} editor={String(settings?.values['ui.editor_uri'] ?? 'vscode://file/{path}:{line}')} waiting={<SpeechModelButton pull={pull} name={speechModel(settings)} />} />
              ) : (
                <p className="hint">Type to search; ↑/↓ to move through the hits, Enter to open one.</p>
              )}
            </section>
          </>
        )}
        {/* Closed, the drawer is hidden, not unmounted: the question and its answer are there when it opens again. */}
        <aside className="ask-drawer" hidden={!asking}>
          <AskPanel
            kb={kb}
            onOpen={(h) => {
              setView('search');
              setPinned(h);
            }}
          />
        </aside>
      </main>
      <footer>
        {docs === null ? '' : `${docs.count} document${docs.count === 1 ? '' : 's'}${docs.failed ? ` (${docs.failed} failed)` : ''}`} · engine {engine}
        {setup.status && !setup.status.embedding.installed ? ' · by words only' : ''}
        {background && <BackgroundNote e={background} />}
      </footer>
    </div>
  );
}
